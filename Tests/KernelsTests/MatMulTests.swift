import Kernels
import Tensor
import Testing

/// Naive reference: quantize each token's activations, then the Swift reference dot per output.
private func referenceLinear(_ w: TensorView, _ x: [Float], n: Int) -> (out: [Double], scale: [Double]) {
    let cols = w.rowLength, rows = w.rowCount
    var out = [Double](repeating: 0, count: n * rows), scale = out
    for t in 0..<n {
        let act = quantizedActivations(w.type, Array(x[(t * cols)..<((t + 1) * cols)]))
        act.withUnsafeBytes { ap in
            for r in 0..<rows {
                out[t * rows + r] = ReferenceDot.dot(w.type, w.row(r), activations: ap.baseAddress!, count: cols)
                scale[t * rows + r] = absProductSum(w.type, w.row(r), ap.baseAddress!, count: cols)
            }
        }
    }
    return (out, scale)
}

private func run(_ mm: MatMul, _ w: TensorView, _ x: [Float], n: Int) -> [Float] {
    var out = [Float](repeating: .nan, count: n * w.rowCount)
    x.withUnsafeBufferPointer { xp in
        out.withUnsafeMutableBufferPointer { mm.linear(w, xp.baseAddress!, $0.baseAddress!, n: n) }
    }
    return out
}

@Test(arguments: KernelTypes.all)
func `linear matches the reference for one, five and nine tokens on 1, 2 and 3 threads`(type: GGMLType) {
    var rng = TestRandom(seed: 200 + UInt64(type.rawValue))
    let cols = KernelTypes.cols(type, blocks: type.blockSize == 256 ? 2 : 3)
    let rows = 13  // not divisible by 2 or 3 thread chunks
    let w = RandomBlocks.tensor(type, cols: cols, rows: rows, rng: &rng)
    for n in [1, 5, 9] {  // 5 and 9 take the GEMM path: token quads plus remainders
        let x = rng.activations(n * cols)
        let (ref, scale) = referenceLinear(w, x, n: n)
        for threads in [1, 2, 3] {
            let mm = MatMul(threads: threads)
            mm.minBytesPerTask = 1  // split even these small rows across threads
            let out = run(mm, w, x, n: n)
            for i in 0..<(n * rows) {
                #expect(normalizedError(Double(out[i]), ref[i], scale: scale[i]) < referenceTolerance(type),
                        "\(type) n=\(n) threads=\(threads) out[\(i)] = \(out[i]) vs \(ref[i])")
            }
        }
    }
}

@Test(arguments: KernelTypes.all)
func `a batched decode step's rows through the matrix-vector kernels match the reference`(type: GGMLType) {
    // A step of continuous batching raises the GEMM threshold, so up to 23 tokens pass each block
    // of weight rows through the matrix-vector kernels.
    var rng = TestRandom(seed: 500 + UInt64(type.rawValue))
    let cols = KernelTypes.cols(type, blocks: type.blockSize == 256 ? 2 : 3)
    let rows = 70  // several L1 row blocks of these small rows, and a remainder past the four-row groups
    let w = RandomBlocks.tensor(type, cols: cols, rows: rows, rng: &rng)
    for n in [5, 9, 17] {
        let x = rng.activations(n * cols)
        let (ref, scale) = referenceLinear(w, x, n: n)
        for threads in [1, 2] {
            let mm = MatMul(threads: threads)
            mm.minBytesPerTask = 1
            mm.gemmFromRows = MatMul.decodeStepMatrixVectorRows
            let out = run(mm, w, x, n: n)
            for i in 0..<(n * rows) {
                #expect(normalizedError(Double(out[i]), ref[i], scale: scale[i]) < referenceTolerance(type),
                        "\(type) n=\(n) threads=\(threads) out[\(i)] = \(out[i]) vs \(ref[i])")
            }
        }
    }
}

@Test(arguments: [GGMLType.q4_1, .q8_0, .q4_K, .q6_K, .q5_0, .f16])
func `a prompt batch agrees with one matrix-vector product per token`(type: GGMLType) {
    var rng = TestRandom(seed: 300 + UInt64(type.rawValue))
    let cols = KernelTypes.cols(type, blocks: type.blockSize == 256 ? 3 : 18)
    let rows = 150  // several GEMM tiles and four-row blocks, with remainders
    let w = RandomBlocks.tensor(type, cols: cols, rows: rows, rng: &rng)
    let n = 7
    let x = rng.activations(n * cols)
    let mm = MatMul(threads: 2)
    mm.minBytesPerTask = 1
    let batch = run(mm, w, x, n: n)
    for t in 0..<n {
        let xt = Array(x[(t * cols)..<((t + 1) * cols)])
        let single = run(mm, w, xt, n: 1)
        let act = quantizedActivations(type, xt)
        act.withUnsafeBytes { ap in
            for r in 0..<rows {
                let scale = absProductSum(type, w.row(r), ap.baseAddress!, count: cols)
                #expect(normalizedError(Double(batch[t * rows + r]), Double(single[r]), scale: scale) < 1e-5,
                        "\(type) token \(t) row \(r): \(batch[t * rows + r]) vs \(single[r])")
            }
        }
    }
}

@Test func `the scratch buffer is reused when a smaller call follows a larger one`() {
    var rng = TestRandom(seed: 400)
    let w = RandomBlocks.tensor(.q8_0, cols: 64, rows: 4, rng: &rng)
    let big = rng.activations(64 * 9), small = rng.activations(64)
    let reused = MatMul(threads: 1)
    _ = run(reused, w, big, n: 9)
    #expect(run(reused, w, small, n: 1) == run(MatMul(threads: 1), w, small, n: 1))
}

@Test(arguments: [[GGMLType.q5_0, .q5_0, .q8_0], [.q4_1, .q4_K, .q6_K], [.f16, .q4_0, .q5_1, .q4_1]])
func `matrices sharing an input give what one call each gives, bit for bit`(types: [GGMLType]) {
    // A layer's query, key and value (or gate and up) in one split job: row counts that are
    // not multiples of 4, shares that end inside a matrix, formats that share a quantized input
    // (Q5_0 and Q8_0: Q8_0; Q4_1 and Q5_1: Q8_1) and one that takes the floats (F16).
    var rng = TestRandom(seed: 700)
    let cols = 512
    let ws = types.enumerated().map { i, type in RandomBlocks.tensor(type, cols: cols, rows: [37, 13, 70, 6][i], rng: &rng) }
    let x = rng.activations(cols)
    for threads in [2, 3] {
        let mm = MatMul(threads: threads)
        mm.minBytesPerTask = 1
        var outs = ws.map { [Float](repeating: .nan, count: $0.rowCount) }
        let pointers = outs.indices.map { i in UnsafeMutablePointer<Float>.allocate(capacity: ws[i].rowCount) }
        defer { pointers.forEach { $0.deallocate() } }
        x.withUnsafeBufferPointer { mm.linear(ws, $0.baseAddress!, pointers, n: 1) }
        for i in ws.indices {
            outs[i] = Array(UnsafeBufferPointer(start: pointers[i], count: ws[i].rowCount))
            let alone = run(MatMul(threads: 1), ws[i], x, n: 1)
            #expect(outs[i] == alone, "\(types[i]) (matrix \(i)) on \(threads) threads")
        }
    }
}
