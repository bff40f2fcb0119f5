import CKernels
import Testing
import TestSupport

/// The encoder's C kernels against their scalar twins and float64 references, over awkward sizes.
struct EncoderKernelTests {
    static func random(_ n: Int, _ g: inout SeededGenerator) -> [Float] {
        (0..<n).map { _ in Float(Double(g.next() >> 11) / Double(1 << 53)) * 2 - 1 }
    }

    @Test(arguments: [(1, 8, 1), (4, 8, 3), (5, 24, 7), (13, 384, 29), (64, 96, 100), (67, 136, 97), (161, 64, 35)])
    func `the blocked product equals the scalar one for F32 and F16 weights`(_ shape: (Int, Int, Int)) {
        let (tokens, cols, rows) = shape
        var g = SeededGenerator(seed: UInt64(tokens * 1000 + cols + rows))
        let x = Self.random(tokens * cols, &g)
        let w32 = Self.random(rows * cols, &g)
        let w16 = w32.map { odk_fp32_to_fp16($0) }
        for (type, bytes) in [(Int32(0), 4), (Int32(1), 2)] {
            var fast = [Float](repeating: .nan, count: tokens * rows)
            var slow = fast
            let weights: [UInt8] = type == 0 ? w32.withUnsafeBytes { Array($0) } : w16.withUnsafeBytes { Array($0) }
            weights.withUnsafeBytes { w in
                #expect(od_gemm_rows(type, Int64(cols), w.baseAddress, cols * bytes, 0, Int64(rows), x, Int64(tokens), &fast, Int64(rows)) == 1)
                #expect(od_gemm_rows_scalar(type, Int64(cols), w.baseAddress, cols * bytes, 0, Int64(rows), x, Int64(tokens), &slow, Int64(rows)) == 1)
            }
            let worst = zip(fast, slow).map { abs($0 - $1) }.max() ?? .nan
            #expect(worst < 1e-4 * Float(cols).squareRoot(), "type \(type) \(shape): \(worst)")
            // Rows split across calls at a multiple of the 3-row tile (as the threads split them)
            // form the same tiles, so the results are bit-identical.
            var split = [Float](repeating: .nan, count: tokens * rows)
            let half = rows / 2 / 3 * 3
            weights.withUnsafeBytes { w in
                _ = od_gemm_rows(type, Int64(cols), w.baseAddress, cols * bytes, 0, Int64(half), x, Int64(tokens), &split, Int64(rows))
                _ = od_gemm_rows(type, Int64(cols), w.baseAddress, cols * bytes, Int64(half), Int64(rows), x, Int64(tokens), &split, Int64(rows))
            }
            #expect(split == fast, "type \(type) \(shape)")
        }
        #expect(od_gemm_rows(8, Int64(cols), w32, cols, 0, 1, x, 1, nil, 1) == 0, "quantized types are refused")
    }

    @Test(arguments: [(1, 16), (7, 384), (100, 768), (33, 10)])
    func `the search scan equals the scalar one`(_ shape: (Int, Int)) {
        let (n, d) = shape
        var g = SeededGenerator(seed: UInt64(n * d))
        let rows = Self.random(n * d, &g), q = Self.random(d, &g)
        var fast = [Float](repeating: 0, count: n), slow = fast
        od_dot_rows_f32(q, rows, Int64(n), Int64(d), &fast)
        od_dot_rows_f32_scalar(q, rows, Int64(n), Int64(d), &slow)
        for i in 0..<n { #expect(abs(fast[i] - slow[i]) < 1e-4, "row \(i)") }
    }

    @Test func `layer norm, erf GELU and mean rows match float64`() {
        var g = SeededGenerator(seed: 7)
        let x = Self.random(384, &g).map { $0 * 3 + 10 }
        let w = Self.random(384, &g), b = Self.random(384, &g)
        var out = [Float](repeating: 0, count: 384)
        od_layer_norm(x, w, b, &out, 384, 1e-12)
        let mean = x.reduce(0.0) { $0 + Double($1) } / 384
        let variance = x.reduce(0.0) { $0 + (Double($1) - mean) * (Double($1) - mean) } / 384
        for i in 0..<384 {
            let expected = (Double(x[i]) - mean) / (variance + 1e-12).squareRoot() * Double(w[i]) + Double(b[i])
            #expect(abs(Double(out[i]) - expected) < 1e-5)
        }
        // The vector path (whole blocks of 8) and its scalar twin against float64, over the range
        // activations take and past where erf saturates.
        let inputs: [Float] = (0..<2003).map { Float($0 - 1000) / 100 }
        var gelu = [Float](repeating: 0, count: inputs.count), twin = gelu
        od_gelu_erf(inputs, &gelu, Int64(inputs.count))
        od_gelu_erf_scalar(inputs, &twin, Int64(inputs.count))
        for (i, v) in inputs.enumerated() {
            let exact = 0.5 * Double(v) * (1 + erf(Double(v) / 2.0.squareRoot()))
            #expect(abs(Double(gelu[i]) - exact) < 2e-6 * max(1, abs(Double(v))), "gelu(\(v)) = \(gelu[i]), float64 \(exact)")
            #expect(abs(Double(twin[i]) - exact) < 1e-6 * max(1, abs(Double(v))))
        }
        var mean3 = [Float](repeating: 0, count: 2)
        od_mean_rows([1, 2, 3, 4, 5, 9], 3, 2, &mean3)
        #expect(mean3 == [3, 5])
    }
    @Test(arguments: [(1, 32), (5, 32), (8, 32), (19, 32), (33, 64), (70, 32), (12, 16)])
    func `whole-sequence attention equals attention row by row`(_ shape: (Int, Int)) {
        let (n, headDim) = shape, stride = headDim * 3 + 8
        var g = SeededGenerator(seed: UInt64(n * 100 + headDim))
        let q = Self.random(n * stride, &g).map { $0 * 3 }, k = Self.random(n * stride, &g), v = Self.random(n * stride, &g)
        let scale = 1 / Float(headDim).squareRoot()
        var scratch = [Float](repeating: .nan, count: od_attend_sequence_scratch(Int64(n), Int64(headDim)))
        var block = [Float](repeating: .nan, count: n * headDim), rows = block
        od_attend_sequence(q, k, v, Int64(stride), Int64(n), Int64(headDim), scale, &scratch, &block, Int64(headDim))
        var scores = [Float](repeating: 0, count: n)
        for r in 0..<n {
            rows.withUnsafeMutableBufferPointer { out in
                od_attend_head(Array(q[(r * stride)...]), k, v, stride, n, headDim, scale, &scores, out.baseAddress! + r * headDim)
            }
        }
        let worst = zip(block, rows).map { abs($0 - $1) }.max() ?? .nan
        #expect(worst < 1e-5, "\(shape): \(worst)")
    }

    @Test func `the residual add and layer norm of a row block match float64 at any width`() {
        var g = SeededGenerator(seed: 9)
        for width in [7, 384, 389] {
            let rows = 3
            var x = Self.random(rows * width, &g).map { $0 * 5 + 2 }
            let y = Self.random(rows * width, &g), w = Self.random(width, &g), b = Self.random(width, &g)
            let before = x
            od_add_layer_norm_rows(&x, y, w, b, Int64(rows), Int64(width), 1e-12)
            for r in 0..<rows {
                let row = (0..<width).map { Double(before[r * width + $0]) + Double(y[r * width + $0]) }
                let mean = row.reduce(0, +) / Double(width)
                let variance = row.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(width)
                for i in 0..<width {
                    let expected = (row[i] - mean) / (variance + 1e-12).squareRoot() * Double(w[i]) + Double(b[i])
                    #expect(abs(Double(x[r * width + i]) - expected) < 1e-5, "width \(width) row \(r) [\(i)]")
                }
            }
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
