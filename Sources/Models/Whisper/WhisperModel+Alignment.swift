import Foundation
import Kernels

/// What one forced decoder pass shows of the timing of its tokens: the cross-attention of the
/// alignment heads and each token's probability. Read by word alignment (OpenAI whisper's
/// `timing.py`, CTranslate2's `WhisperReplica::align`).
package struct WhisperCrossAttention: Sendable {
    /// Heads, forced tokens (rows) and encoder positions attended to.
    package var heads: Int
    package var rows: Int
    package var positions: Int
    /// Attention probabilities of each head, a softmax over the first `positions` encoder
    /// positions only (the audio, not the window's padding). (heads, rows, positions)
    package var weights: [Float]
    /// Probability of `tokens[r + 1]` after row r, from a softmax over the text vocabulary
    /// (ids below end-of-text); 0 for a token outside it. (rows - 1)
    package var nextTokenProbabilities: [Float]
}

extension WhisperModel {
    /// The heads word alignment averages: `alignment_heads` from config.json, else every head of
    /// the last half of the decoder layers (faster-whisper's and whisper's default).
    package var alignmentHeads: [WhisperAlignmentHead] {
        let given = generation.alignmentHeads.filter {
            (0..<config.decoderLayers).contains($0.layer) && (0..<config.decoderHeads).contains($0.head)
        }
        if !given.isEmpty { return given }
        return (config.decoderLayers / 2..<config.decoderLayers).flatMap { l in
            (0..<config.decoderHeads).map { WhisperAlignmentHead(layer: l, head: $0) }
        }
    }

    /// Runs `tokens` through the decoder from position 0 over the window already encoded in
    /// `state` and returns the alignment heads' cross-attention over its first `positions`
    /// encoder positions, with the probability of each next token. Resets the decoder cache
    /// before and after; decoding never calls it, so it costs nothing unless asked for.
    package func crossAttention(forcing tokens: [Int32], positions: Int, textVocabulary: Int,
                                state: WhisperState) -> WhisperCrossAttention {
        let n = tokens.count, d = config.width, hd = d / config.decoderHeads, t = state.encodedPositions
        precondition(n >= 1 && n <= config.textContext && positions >= 1 && positions <= t)
        let heads = alignmentHeads
        let scale = 1 / Float(hd).squareRoot()
        state.resetDecoder()
        var attention = [Float](repeating: 0, count: heads.count * n * positions)
        attention.withUnsafeMutableBufferPointer { buffer in
            let out = buffer.baseAddress!
            forward(tokens, beams: [Int](repeating: 0, count: n), positions: Array(0..<n), state: state) { l in
                for (i, head) in heads.enumerated() where head.layer == l {
                    // Keys transposed, head-major: dimension j of position p at kt[j * t + p].
                    let kt = state.crossKeysT + l * d * t + head.head * hd * t
                    for r in 0..<n {
                        let q = state.qkv + r * d + head.head * hd
                        let row = out + (i * n + r) * positions
                        for j in 0..<hd {
                            let qj = q[j] * scale, k = kt + j * t
                            for p in 0..<positions { row[p] += qj * k[p] }
                        }
                        Self.softmax(row, count: positions)
                    }
                }
            }
        }
        // Next-token probabilities, a batch of at most maxBeams rows of logits at a time.
        var probabilities: [Float] = []
        probabilities.reserveCapacity(n - 1)
        norm(weights.decoderNorm, state.x, state.h, rows: n)
        let vocabulary = config.vocabularySize, limit = min(textVocabulary, vocabulary)
        var first = 0
        while first < n - 1 {
            let rows = min(state.maxBeams, n - 1 - first)
            linear(WhisperLinear(weight: weights.tokenEmbedding, bias: nil), state.h + first * d, state.logits, rows: rows, state: state)
            for r in 0..<rows {
                let logits = state.logits + r * vocabulary
                let next = Int(tokens[first + r + 1])
                guard next < limit else { probabilities.append(0); continue }
                var top = -Float.infinity
                for v in 0..<limit { top = max(top, logits[v]) }
                var sum: Float = 0
                for v in 0..<limit { sum += expf(logits[v] - top) }
                probabilities.append(expf(logits[next] - top) / sum)
            }
            first += rows
        }
        state.resetDecoder()
        return WhisperCrossAttention(heads: heads.count, rows: n, positions: positions, weights: attention,
                                     nextTokenProbabilities: probabilities)
    }

    private static func softmax(_ row: UnsafeMutablePointer<Float>, count: Int) {
        var top = -Float.infinity
        for p in 0..<count { top = max(top, row[p]) }
        var sum: Float = 0
        for p in 0..<count {
            row[p] = expf(row[p] - top)
            sum += row[p]
        }
        let inverse = 1 / sum
        for p in 0..<count { row[p] *= inverse }
    }
}
