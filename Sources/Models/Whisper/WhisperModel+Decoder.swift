import CKernels
import Kernels

extension WhisperModel {
    /// Feeds prompt `tokens` to beam 0 at positions `state.length …`, filling its cache. Returns
    /// the logits after token `logitsRow` when asked (the no-speech probability is read at
    /// `<|startoftranscript|>`); no other logits are computed.
    package func prefill(_ tokens: [Int32], state: WhisperState, logitsRow: Int? = nil) -> [Float]? {
        precondition(state.beamCount == 1 && state.length + tokens.count <= config.textContext)
        guard !tokens.isEmpty else { return nil }
        let start = state.length
        forward(tokens, beams: [Int](repeating: 0, count: tokens.count), positions: Array(start..<(start + tokens.count)), state: state)
        state.length += tokens.count
        guard let row = logitsRow else { return nil }
        let d = config.width
        var out = [Float](repeating: 0, count: config.vocabularySize)
        norm(weights.decoderNorm, state.x + row * d, state.h, rows: 1)
        out.withUnsafeMutableBufferPointer { state.matmul.linear(weights.tokenEmbedding, state.h, $0.baseAddress!, n: 1) }
        return out
    }

    /// One decoding step: `tokens[i]` is the next input of beam i, all at position
    /// `state.length`. The logits land in `state.logits(beam:)`.
    package func step(_ tokens: [Int32], state: WhisperState) {
        precondition(tokens.count == state.beamCount && state.length < config.textContext)
        let n = tokens.count
        forward(tokens, beams: Array(0..<n), positions: [Int](repeating: state.length, count: n), state: state)
        state.length += 1
        norm(weights.decoderNorm, state.x, state.h, rows: n)
        linear(WhisperLinear(weight: weights.tokenEmbedding, bias: nil), state.h, state.logits, rows: n, state: state)
    }

    /// The decoder layers over rows of (token, beam, position); leaves the last layer's
    /// residual stream in `state.x`. `crossQueries(layer)`, when given, runs once the layer's
    /// cross-attention queries are in `state.qkv` (rows, stride d): the word-alignment pass
    /// reads the attention of chosen heads there; decoding passes nil.
    func forward(_ tokens: [Int32], beams: [Int], positions: [Int], state s: WhisperState,
                 crossQueries: ((Int) -> Void)? = nil) {
        let c = config, d = c.width, n = tokens.count
        let table = weights.tokenEmbedding
        for r in 0..<n {
            let row = s.x + r * d
            Dequantize.row(table.type, table.row(Int(tokens[r])), row, count: d)
            weights.decoderPositions.withUnsafeBufferPointer { VectorMath.add(row, $0.baseAddress! + positions[r] * d, out: row, count: d) }
        }
        for (l, layer) in weights.decoderLayers.enumerated() {
            norm(layer.selfNorm, s.x, s.h, rows: n)
            linear(layer.selfQKV, s.h, s.qkv, rows: n, state: s)
            for r in 0..<n {
                (s.keys(layer: l, beam: beams[r]) + positions[r] * d).update(from: s.qkv + r * 3 * d + d, count: d)
                (s.values(layer: l, beam: beams[r]) + positions[r] * d).update(from: s.qkv + r * 3 * d + 2 * d, count: d)
            }
            attend(rows: n, queries: s.qkv, queryStride: 3 * d, state: s) { r in
                (s.keys(layer: l, beam: beams[r]), s.values(layer: l, beam: beams[r]), d, positions[r] + 1)
            }
            linear(layer.selfOutput, s.attn, s.h, rows: n, state: s)
            VectorMath.add(s.x, s.h, out: s.x, count: n * d)

            norm(layer.crossNorm, s.x, s.h, rows: n)
            linear(layer.crossQuery, s.h, s.qkv, rows: n, state: s)
            crossQueries?(l)
            crossAttention(layer: l, rows: n, state: s)
            linear(layer.crossOutput, s.attn, s.h, rows: n, state: s)
            VectorMath.add(s.x, s.h, out: s.x, count: n * d)

            norm(layer.ffnNorm, s.x, s.h, rows: n)
            linear(layer.fc1, s.h, s.ffn, rows: n, state: s)
            VectorMath.geluErf(s.ffn, out: s.ffn, count: n * c.feedForwardWidth)
            linear(layer.fc2, s.ffn, s.h, rows: n, state: s)
            VectorMath.add(s.x, s.h, out: s.x, count: n * d)
        }
    }

    /// Cross-attention of `rows` queries (in `state.qkv`, stride d) over the window's encoder
    /// output, per head, with the transposed keys; at most 16 rows per call.
    private func crossAttention(layer l: Int, rows n: Int, state s: WhisperState) {
        let c = config, d = c.width, heads = c.decoderHeads, hd = d / heads, t = s.encodedPositions
        let scale = 1 / Float(hd).squareRoot()
        nonisolated(unsafe) let q = s.qkv, out = s.attn, scores = s.scores
        nonisolated(unsafe) let kt = s.crossKeysT + l * d * t, v = s.crossValues + l * d * t
        let block = max(1, s.scoreRows / heads)
        let body: @Sendable (Int) -> Void = { h in
            var first = 0
            while first < n {
                let rows = min(block, n - first)
                od_attend_transposed(q + first * d + h * hd, Int64(d), Int64(rows), kt + h * hd * t, v + h * t * hd, Int64(hd),
                                     Int64(t), Int64(hd), scale, scores + h * block * t, out + first * d + h * hd, Int64(d))
                first += rows
            }
        }
        if s.threads > 1 {
            ComputePool.run(threads: s.threads, parts: heads, body)
        } else {
            for h in 0..<heads { body(h) }
        }
    }

    /// Multi-head attention of `rows` queries into `state.attn`; `source(row)` gives that row's
    /// keys, values, their row stride and how many keys it sees.
    private func attend(rows n: Int, queries: UnsafeMutablePointer<Float>, queryStride: Int, state s: WhisperState,
                        source: (Int) -> (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>, Int, Int)) {
        let heads = config.decoderHeads, hd = config.width / heads, d = config.width
        let scale = 1 / Float(hd).squareRoot()
        nonisolated(unsafe) let sources = (0..<n).map(source)
        nonisolated(unsafe) let q = queries, out = s.attn, scores = s.scores
        let scoreStride = max(config.audioContext, config.textContext)
        let slots = s.scoreRows
        let body: @Sendable (Int) -> Void = { task in
            let r = task / heads, head = task % heads
            let (keys, values, stride, count) = sources[r]
            od_attend_head(q + r * queryStride + head * hd, keys + head * hd, values + head * hd, stride, count, hd, scale,
                           scores + (task % slots) * scoreStride, out + r * d + head * hd)
        }
        let tasks = n * heads
        if s.threads > 1 && tasks > 1 && tasks <= slots && n * sources[0].3 > 256 {
            ComputePool.run(threads: s.threads, parts: tasks, body)
        } else {
            for task in 0..<tasks { body(task) }
        }
    }
}
