import CKernels
import Kernels

extension WhisperModel {
    /// Encodes one window of log-mel frames, (melCount, frames) row-major, into
    /// `state.encoderOutput`, and derives every decoder layer's cross-attention keys and values
    /// from it. Resets the decoder.
    ///
    /// The model was trained on 30 s windows (frames = 2·audioContext), which is what every
    /// reference runs. A shorter window (an even number of frames) encodes only its frames/2
    /// positions — whisper.cpp's `audio_ctx` — far less work for a short clip, at some cost in
    /// accuracy that the caller must judge.
    package func encode(_ mel: UnsafeBufferPointer<Float>, state: WhisperState) {
        let c = config, d = c.width, frames = mel.count / c.melCount, positions = frames / 2
        precondition(mel.count == c.melCount * frames && frames % 2 == 0 && positions >= 1 && positions <= c.audioContext,
                     "a window is \(c.melCount) × an even number of mel frames, at most \(2 * c.audioContext)")
        state.encodedPositions = positions
        let w = weights
        let mels = c.melCount
        // conv1 (k3, s1, p1) as a matmul over columns (channel, tap): col[t][ch·3 + k] = mel[ch][t + k - 1].
        let columns = state.encoderWide
        for t in 0..<frames {
            let row = columns + t * mels * 3
            for ch in 0..<mels {
                let src = mel.baseAddress! + ch * frames
                for k in 0..<3 {
                    let i = t + k - 1
                    row[ch * 3 + k] = i >= 0 && i < frames ? src[i] : 0
                }
            }
        }
        let conv1 = state.encoderQKV  // (frames, d)
        linear(w.conv1, columns, conv1, rows: frames, state: state)
        VectorMath.geluErf(conv1, out: conv1, count: frames * d)
        // conv2 (k3, s2, p1): col[t][ch·3 + k] = conv1[2t + k - 1][ch].
        for t in 0..<positions {
            let row = columns + t * d * 3
            for k in 0..<3 {
                let i = 2 * t + k - 1
                if i >= 0 && i < frames {
                    let src = conv1 + i * d
                    for ch in 0..<d { row[ch * 3 + k] = src[ch] }
                } else {
                    for ch in 0..<d { row[ch * 3 + k] = 0 }
                }
            }
        }
        let x = state.encoderX
        linear(w.conv2, columns, x, rows: positions, state: state)
        VectorMath.geluErf(x, out: x, count: positions * d)
        w.encoderPositions.withUnsafeBufferPointer { VectorMath.add(x, $0.baseAddress!, out: x, count: positions * d) }

        let h = state.encoderH, qkv = state.encoderQKV, attn = state.encoderAttn, ffn = state.encoderWide
        for layer in w.encoderLayers {
            norm(layer.attentionNorm, x, h, rows: positions)
            linear(layer.qkv, h, qkv, rows: positions, state: state)
            encoderSelfAttention(qkv: qkv, out: attn, state: state)
            linear(layer.attentionOutput, attn, h, rows: positions, state: state)
            VectorMath.add(x, h, out: x, count: positions * d)
            norm(layer.ffnNorm, x, h, rows: positions)
            linear(layer.fc1, h, ffn, rows: positions, state: state)
            VectorMath.geluErf(ffn, out: ffn, count: positions * c.feedForwardWidth)
            linear(layer.fc2, ffn, h, rows: positions, state: state)
            VectorMath.add(x, h, out: x, count: positions * d)
        }
        norm(w.encoderNorm, x, state.encoderOutput, rows: positions)
        prepareCrossAttention(state: state)
        state.resetDecoder()
    }

    /// Every decoder layer's cross-attention keys and values from the encoder output, laid out
    /// for decoding: keys transposed ((d, positions) per layer) so scores are plain FMAs, and
    /// values grouped by head ((heads, positions, headDim)) so each head's rows are contiguous.
    private func prepareCrossAttention(state: WhisperState) {
        let c = config, t = state.encodedPositions, d = c.width, hd = d / c.decoderHeads
        let kv = state.crossKV
        for (l, layer) in weights.decoderLayers.enumerated() {
            linear(layer.crossKeyValue, state.encoderOutput, kv, rows: t, state: state)
            let kt = state.crossKeysT + l * d * t, values = state.crossValues + l * d * t
            for j in 0..<t {
                let row = kv + j * 2 * d
                for i in 0..<d { kt[i * t + j] = row[i] }
                for h in 0..<c.decoderHeads {
                    (values + (h * t + j) * hd).update(from: row + d + h * hd, count: hd)
                }
            }
        }
    }

    /// Bidirectional attention of every encoder position over all positions, one head at a
    /// time: S = Q·Kᵀ (1500 × 1500, 9 MB, which L3 holds), softmax(S/√d) by rows, O = S·V,
    /// both products through the packed GEMM, so each head's keys and values are packed once.
    /// Heads are spread over the workers, each with its own S in the state.
    private func encoderSelfAttention(qkv: UnsafeMutablePointer<Float>, out: UnsafeMutablePointer<Float>, state: WhisperState) {
        let c = config, d = c.width, heads = c.encoderHeads, hd = d / heads, n = state.encodedPositions
        let scale = 1 / Float(hd).squareRoot()
        let workers = max(1, min(state.threads, heads))
        nonisolated(unsafe) let q = qkv, o = out, s = state.encoderScores
        let body: @Sendable (Int) -> Void = { worker in
            let scratch = s + worker * n * n
            for head in stride(from: worker, to: heads, by: workers) {
                let keys = Gemm.Operand(data: q + d + head * hd, rowStride: 3 * d, isHalf: false, reductionMajor: false)
                Gemm.multiply(q + head * hd, rows: n, reduction: hd, lda: 3 * d, b: keys, columns: n, out: scratch, ldc: n)
                od_softmax_rows(scratch, Int64(n), Int64(n), Int64(n), scale)
                let values = Gemm.Operand(data: q + 2 * d + head * hd, rowStride: 3 * d, isHalf: false, reductionMajor: true)
                Gemm.multiply(scratch, rows: n, reduction: n, lda: n, b: values, columns: hd, out: o + head * hd, ldc: d)
            }
        }
        if workers > 1 {
            ComputePool.run(threads: workers, parts: workers, body)
        } else {
            body(0)
        }
    }

    /// out = x·W (+ bias) for `rows` rows.
    func linear(_ l: WhisperLinear, _ x: UnsafePointer<Float>, _ out: UnsafeMutablePointer<Float>, rows: Int, state: WhisperState) {
        // Batches go through the blocked GEMM; a few rows (decoding) through the dot kernels,
        // which read F16 weights directly and are bound by memory, not arithmetic.
        if rows >= Self.gemmRows && (l.weight.type == .f16 || l.weight.type == .f32) {
            Gemm.multiply(x, rows: rows, reduction: l.weight.rowLength, lda: l.weight.rowLength, b: Gemm.Operand(weight: l.weight),
                          columns: l.outputs, out: out, ldc: l.outputs, threads: state.threads)
        } else {
            state.matmul.linear(l.weight, x, out, n: rows)
        }
        if let bias = l.bias {
            bias.withUnsafeBufferPointer { VectorMath.addBias(out, $0.baseAddress!, rows: rows, width: l.outputs) }
        }
    }

    /// Rows from which a linear layer uses the GEMM.
    static let gemmRows = 2

    func norm(_ n: WhisperLayerNorm, _ x: UnsafePointer<Float>, _ out: UnsafeMutablePointer<Float>, rows: Int) {
        n.gamma.withUnsafeBufferPointer { g in
            n.beta.withUnsafeBufferPointer { b in
                VectorMath.layerNorm(x, gamma: g.baseAddress!, beta: b.baseAddress!, out: out, rows: rows, width: config.width)
            }
        }
    }
}
