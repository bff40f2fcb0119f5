import CKernels
import Dispatch
import Kernels
import Tensor

/// The building blocks the encoder architecture files compose, over the packed batch.
extension EncoderState {
    /// x[t] = table[token t] (+ positions[p] where p is t's place in its sequence)
    /// (+ types[0]: every token is segment A).
    func embed(_ batch: EncoderBatch, table: TensorView, positions: TensorView?, typeRow: [Float]?) {
        let d = config.embeddingLength
        batch.tokens.withUnsafeBufferPointer { tokens in
            for (t, id) in tokens.enumerated() {
                Dequantize.row(table.type, table.row(Int(id)), x + t * d, count: d)
            }
        }
        if let positions {
            let row = UnsafeMutablePointer<Float>.allocate(capacity: d)
            defer { row.deallocate() }
            for range in batch.sequences {
                for (p, t) in range.enumerated() {
                    Dequantize.row(positions.type, positions.row(p), row, count: d)
                    VectorMath.add(x + t * d, row, out: x + t * d, count: d)
                }
            }
        }
        if let typeRow {
            typeRow.withUnsafeBufferPointer { od_add_bias_rows(x, $0.baseAddress, Int64(batch.tokenCount), Int64(d)) }
        }
    }

    /// LayerNorm of `rows` rows of `x`, in place.
    func layerNorm(_ rowsPointer: UnsafeMutablePointer<Float>, rows: Int, weight: [Float], bias: [Float]) {
        let d = config.embeddingLength, eps = config.layerNormEpsilon
        weight.withUnsafeBufferPointer { w in
            bias.withUnsafeBufferPointer { b in
                for r in 0..<rows {
                    od_layer_norm(rowsPointer + r * d, w.baseAddress, b.baseAddress, rowsPointer + r * d, Int64(d), eps)
                }
            }
        }
    }

    /// out = W · input (+ bias) for `n` rows: (n, w.rowCount).
    ///
    /// F32 and F16 weights (every encoder we ship) go through the register-blocked
    /// `od_gemm_rows` (packed 16-row panels against 6 tokens at a time): an encoder pass is many
    /// tokens at once, unlike decoding. Other types take `MatMul.linear`.
    func linear(_ w: TensorView, bias: [Float]?, _ input: UnsafePointer<Float>, _ out: UnsafeMutablePointer<Float>, n: Int) {
        let rows = w.rowCount, cols = w.rowLength
        if (w.type == .f32 || w.type == .f16) && n >= 4 && cols % 8 == 0 {
            let type = Int32(bitPattern: w.type.rawValue), rowBytes = w.rowBytes
            // Row ranges per worker, multiples of both kernels' row tiles (16 and 3); ~100k
            // weights each at least.
            let parts = min(threads, max(1, rows * cols / 100_000))
            nonisolated(unsafe) let (wp, xp, op) = (w.data, input, out)
            DispatchQueue.concurrentPerform(iterations: parts) { p in
                let begin = rows * p / parts / 48 * 48, end = p == parts - 1 ? rows : rows * (p + 1) / parts / 48 * 48
                _ = od_gemm_rows(type, Int64(cols), wp, rowBytes, Int64(begin), Int64(end), xp, Int64(n), op, Int64(rows))
            }
            withExtendedLifetime(w) {}
        } else {
            matmul.linear(w, input, out, n: n)
        }
        if let bias {
            bias.withUnsafeBufferPointer { od_add_bias_rows(out, $0.baseAddress, Int64(n), Int64(w.rowCount)) }
        }
    }

    /// Rotates the query and key heads of every token by its position in its sequence, pairing
    /// dimension i with i + headDim/2 ("neox" rotary). Queries and keys are rows of `stride`
    /// floats at `q` and `k`.
    func rotate(_ batch: EncoderBatch, q: UnsafeMutablePointer<Float>, k: UnsafeMutablePointer<Float>, stride: Int) {
        let c = config, half = c.headDim / 2
        buildRotaryTables(count: batch.longest)
        for range in batch.sequences {
            for (p, t) in range.enumerated() {
                let cosRow = ropeCos + p * half, sinRow = ropeSin + p * half
                for base in [q + t * stride, k + t * stride] {
                    for h in 0..<c.headCount {
                        let head = base + h * c.headDim
                        for i in 0..<half {
                            let x0 = head[i], x1 = head[i + half]
                            head[i] = x0 * cosRow[i] - x1 * sinRow[i]
                            head[i + half] = x0 * sinRow[i] + x1 * cosRow[i]
                        }
                    }
                }
            }
        }
    }

    /// Bidirectional attention within each sequence, into `attn` (tokens, d). Queries, keys and
    /// values are rows of `stride` floats with head h at column h * headDim.
    func attend(_ batch: EncoderBatch, q: UnsafePointer<Float>, k: UnsafePointer<Float>, v: UnsafePointer<Float>, stride: Int) {
        let c = config
        let scale = 1 / Float(c.headDim).squareRoot()
        nonisolated(unsafe) let (q, k, v, out, scores) = (q, k, v, attn, scores)
        let sequences = batch.sequences, capacity = sequenceCapacity, d = c.embeddingLength
        let body: @Sendable (Int) -> Void = { h in
            let offset = h * c.headDim
            for range in sequences {
                let keys = k + range.lowerBound * stride + offset, values = v + range.lowerBound * stride + offset
                for t in range {
                    od_attend_head(q + t * stride + offset, keys, values, stride, range.count, c.headDim, scale,
                                   scores + h * capacity, out + t * d + offset)
                }
            }
        }
        let work = sequences.reduce(0) { $0 + $1.count * $1.count }
        if threads > 1 && work * c.headCount > 4096 {
            DispatchQueue.concurrentPerform(iterations: c.headCount, execute: body)
        } else {
            for h in 0..<c.headCount { body(h) }
        }
    }

    /// x += y over `count` floats.
    func addInPlace(_ x: UnsafeMutablePointer<Float>, _ y: UnsafePointer<Float>, count: Int) {
        VectorMath.add(x, y, out: x, count: count)
    }

    /// out[s] = mean of x's rows of sequence s: mean pooling over the (all-ones) attention mask.
    func meanPool(_ batch: EncoderBatch, out: UnsafeMutablePointer<Float>) {
        let d = config.embeddingLength
        for (s, range) in batch.sequences.enumerated() {
            od_mean_rows(x + range.lowerBound * d, Int64(range.count), Int64(d), out + s * d)
        }
    }
}
