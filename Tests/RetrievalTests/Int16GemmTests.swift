import CKernels
import Kernels
import Tensor
import Testing
import TestSupport

/// The int16 encoder product (`od_gemm_i16`, `Int16Linear`): bit-identical to its scalar twin,
/// close to the float product, and never overflowing its 32-bit sums, whatever the weights.
struct Int16GemmTests {
    /// Packs `w` (rows × cols, f32) and `x` (tokens × cols) and runs both kernels.
    static func run(_ w: [Float], _ x: [Float], rows: Int, cols: Int, tokens: Int, bias: [Float]?)
        -> (fast: [Float], slow: [Float], levels: Int32) {
        var panels = [Int16](repeating: 0, count: od_i16_weight_elements(Int64(rows), Int64(cols)) + 32)
        var scales = [Float](repeating: 0, count: rows)
        var tokenPanels = [Int16](repeating: 0, count: od_i16_token_elements(Int64(tokens), Int64(cols)))
        var tokenScales = [Float](repeating: 0, count: tokens)
        var fast = [Float](repeating: .nan, count: tokens * rows), slow = fast
        var levels: Int32 = 0
        panels.withUnsafeMutableBufferPointer { p in
            // The AVX2 kernel loads weight panels aligned to 32 bytes.
            let aligned = UnsafeMutablePointer<Int16>(bitPattern: (Int(bitPattern: p.baseAddress!) + 63) / 64 * 64)!
            levels = od_i16_pack_weights(0, Int64(rows), Int64(cols), w, cols * 4, aligned, &scales)
            od_i16_pack_tokens(Int64(tokens), Int64(cols), levels, x, Int64(cols), &tokenPanels, &tokenScales)
            let panelCount = Int64((rows + 15) / 16)
            od_gemm_i16(Int64(cols), Int64(rows), aligned, scales, 0, panelCount, tokenPanels, tokenScales, Int64(tokens), bias, &fast, Int64(rows))
            od_gemm_i16_scalar(Int64(cols), Int64(rows), aligned, scales, 0, panelCount, tokenPanels, tokenScales, Int64(tokens), bias, &slow, Int64(rows))
        }
        return (fast, slow, levels)
    }

    @Test(arguments: [(1, 2, 1), (5, 24, 7), (6, 384, 16), (13, 384, 29), (64, 96, 100), (67, 1536, 40), (161, 64, 35)])
    func `the integer product equals its scalar twin and tracks the float one`(_ shape: (Int, Int, Int)) {
        let (tokens, cols, rows) = shape
        var g = SeededGenerator(seed: UInt64(tokens * 7919 + cols * 31 + rows))
        let x = EncoderKernelTests.random(tokens * cols, &g).map { $0 * 4 }
        let w = EncoderKernelTests.random(rows * cols, &g).map { $0 * 0.1 }
        let bias = EncoderKernelTests.random(rows, &g)
        let (fast, slow, levels) = Self.run(w, x, rows: rows, cols: cols, tokens: tokens, bias: bias)
        #expect(levels > 1000, "\(shape): \(levels) activation levels")
        #expect(fast == slow, "\(shape): the AVX2 kernel differs from its twin")
        // Against float64: each operand is off by at most half a step, so the error is bounded by
        // (|w|₁ step_x + |x|₁ step_w) / 2 per output; check a tenth of the typical output scale.
        var worst = 0.0, scale = 0.0
        for t in 0..<tokens {
            for r in 0..<rows {
                var exact = Double(bias[r])
                for k in 0..<cols { exact += Double(w[r * cols + k]) * Double(x[t * cols + k]) }
                worst = max(worst, abs(Double(fast[t * rows + r]) - exact))
                scale = max(scale, abs(exact))
            }
        }
        #expect(worst < 2e-3 * max(scale, 1e-3), "\(shape): error \(worst) at output scale \(scale)")
    }

    @Test(arguments: [384, 1536, 3072])
    func `the largest sums the levels allow do not overflow`(_ cols: Int) {
        // Every weight and activation at its extreme with matching signs: each output is the
        // largest |sum| the quantized operands can make. One row of all +1, one of alternating
        // signs, one mostly zero with a spike (the narrowest row, which does not set the bound).
        let rows = 3, tokens = 2
        var w = [Float](repeating: 1, count: cols)
        w += (0..<cols).map { $0 % 2 == 0 ? 1 : -1 }
        w += (0..<cols).map { $0 == 5 ? 1 : 0 }
        let x = [Float](repeating: 3, count: cols) + (0..<cols).map { $0 % 2 == 0 ? -3 : 3 }
        let (fast, slow, _) = Self.run(w, x, rows: rows, cols: cols, tokens: tokens, bias: nil)
        #expect(fast == slow)
        let expected: [Float] = [3 * Float(cols), 0, 3, 0, -3 * Float(cols), 3]
        for (i, e) in expected.enumerated() {
            #expect(abs(fast[i] - e) <= 1e-3 * Float(cols), "output \(i): \(fast[i]), expected \(e)")
        }
    }

    @Test func `zero and non-finite token rows contribute nothing`() {
        let cols = 16, rows = 16
        var g = SeededGenerator(seed: 3)
        let w = EncoderKernelTests.random(rows * cols, &g)
        var x = [Float](repeating: 0, count: 3 * cols)
        x[cols + 2] = .nan
        for k in 0..<cols { x[2 * cols + k] = Float(k) - 8 }
        let (fast, slow, _) = Self.run(w, x, rows: rows, cols: cols, tokens: 3, bias: nil)
        #expect(fast == slow)
        #expect(fast[0..<(2 * rows)].allSatisfy { $0 == 0 })
        #expect(fast[(2 * rows)...].contains { $0 != 0 })
    }

    @Test func `a packed linear layer splits its rows over threads without changing a bit`() throws {
        let rows = 100, cols = 64, tokens = 9
        var g = SeededGenerator(seed: 11)
        let w = EncoderKernelTests.random(rows * cols, &g)
        let x = EncoderKernelTests.random(tokens * cols, &g)
        let storage = OwnedBuffer(bytes: w.withUnsafeBytes { Array($0) })
        let view = TensorView(name: "w", type: .f32, shape: [cols, rows], data: UnsafeRawPointer(storage.pointer),
                              byteCount: storage.count, owner: storage)
        let linear = try #require(Int16Linear(weight: view))
        #expect(linear.rows == rows && linear.columns == cols)
        let panels = Int16TokenPanels()
        panels.pack(x, count: tokens, columns: cols, stride: cols, levels: linear.activationLevels)
        var one = [Float](repeating: .nan, count: tokens * rows), two = one
        linear.apply(panels, bias: nil, out: &one, outStride: rows, threads: 1)
        linear.apply(panels, bias: nil, out: &two, outStride: rows, threads: 2)
        #expect(one == two)
        let odd = TensorView(name: "odd", type: .f32, shape: [3, 2], data: UnsafeRawPointer(storage.pointer), byteCount: 24,
                             owner: storage)
        #expect(Int16Linear(weight: odd) == nil, "an odd reduction length keeps the float path")
    }
}
