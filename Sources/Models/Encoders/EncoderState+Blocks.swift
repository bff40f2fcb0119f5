import CKernels
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

    /// x = LayerNorm(x + y) over `rows` rows: a post-LN block's residual add and norm in one
    /// pass per row.
    func addLayerNorm(_ x: UnsafeMutablePointer<Float>, _ y: UnsafePointer<Float>, rows: Int, weight: [Float], bias: [Float]) {
        let d = config.embeddingLength, eps = config.layerNormEpsilon
        weight.withUnsafeBufferPointer { w in
            bias.withUnsafeBufferPointer { b in
                od_add_layer_norm_rows(x, y, w.baseAddress, b.baseAddress, Int64(rows), Int64(d), eps)
            }
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

    /// out = W · input (+ bias) for `n` rows: (n, output features).
    func linear(_ w: EncoderLinear, bias: [Float]?, _ input: UnsafePointer<Float>, _ out: UnsafeMutablePointer<Float>, n: Int) {
        linears([(w, bias, out)], input, n: n)
    }

    /// Several linear layers of one input (query, key and value; gate and up): with int16
    /// weights the input is quantized once for all of them.
    ///
    /// Int16 weights go through `Int16Linear` (bias fused into its store); F32 and F16 weights
    /// otherwise through the register-blocked `od_gemm_rows` (packed 16-row panels against 6
    /// tokens at a time): an encoder pass is many tokens at once, unlike decoding. Other types
    /// take `MatMul.linear`.
    func linears(_ layers: [(EncoderLinear, [Float]?, UnsafeMutablePointer<Float>)], _ input: UnsafePointer<Float>, n: Int) {
        var packedInput = false
        // One quantization of the input serves every layer: at the finest step all of them allow.
        let levels = layers.compactMap { $0.0.packed?.activationLevels }.min() ?? 0
        for (w, bias, out) in layers {
            if let packed = w.packed {
                if !packedInput {
                    tokenPanels.pack(input, count: n, columns: packed.columns, stride: packed.columns, levels: levels)
                    packedInput = true
                }
                if let bias {
                    bias.withUnsafeBufferPointer { packed.apply(tokenPanels, bias: $0.baseAddress, out: out, outStride: packed.rows, threads: threads) }
                } else {
                    packed.apply(tokenPanels, bias: nil, out: out, outStride: packed.rows, threads: threads)
                }
            } else {
                floatLinear(w.weight, bias: bias, input, out, n: n)
            }
        }
    }

    private func floatLinear(_ w: TensorView, bias: [Float]?, _ input: UnsafePointer<Float>, _ out: UnsafeMutablePointer<Float>, n: Int) {
        let rows = w.rowCount, cols = w.rowLength
        if (w.type == .f32 || w.type == .f16) && n >= 4 && cols % 8 == 0 {
            let type = Int32(bitPattern: w.type.rawValue), rowBytes = w.rowBytes
            // Row ranges per worker, multiples of both kernels' row tiles (16 and 3); ~100k
            // weights each at least.
            let parts = min(threads, max(1, rows * cols / 100_000))
            nonisolated(unsafe) let (wp, xp, op) = (w.data, input, out)
            ComputePool.run(threads: threads, parts: parts) { p in
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
        let sequences = batch.sequences, capacity = attentionScratchFloats, d = c.embeddingLength
        let body: @Sendable (Int) -> Void = { h in
            let offset = h * c.headDim
            for range in sequences {
                let base = range.lowerBound * stride + offset
                od_attend_sequence(q + base, k + base, v + base, Int64(stride), Int64(range.count), Int64(c.headDim), scale,
                                   scores + h * capacity, out + range.lowerBound * d + offset, Int64(d))
            }
        }
        let work = sequences.reduce(0) { $0 + $1.count * $1.count }
        if threads > 1 && work * c.headCount > 4096 {
            ComputePool.run(threads: threads, parts: c.headCount, body)
        } else {
            for h in 0..<c.headCount { body(h) }
        }
    }

    /// out[s] = mean of x's rows of sequence s: mean pooling over the (all-ones) attention mask.
    func meanPool(_ batch: EncoderBatch, out: UnsafeMutablePointer<Float>) {
        let d = config.embeddingLength
        for (s, range) in batch.sequences.enumerated() {
            od_mean_rows(x + range.lowerBound * d, Int64(range.count), Int64(d), out + s * d)
        }
    }
}
