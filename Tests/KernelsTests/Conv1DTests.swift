import CKernels
import Kernels
import Testing

/// `od_conv1d` (AVX2 when the CPU has it) against its scalar reference, and `Conv1D.apply`'s
/// thread split against one thread, over sizes that leave partial 6-row and 16-step blocks.
@Suite struct Conv1DTests {
    struct Case {
        var out, inputs, kernel, dilation, steps: Int
    }

    static let cases = [
        Case(out: 1, inputs: 1, kernel: 1, dilation: 1, steps: 1),
        Case(out: 5, inputs: 3, kernel: 3, dilation: 1, steps: 15),
        Case(out: 6, inputs: 17, kernel: 7, dilation: 3, steps: 16),
        Case(out: 13, inputs: 32, kernel: 5, dilation: 6, steps: 47),
        Case(out: 32, inputs: 64, kernel: 2, dilation: 1, steps: 129),
        Case(out: 1, inputs: 32, kernel: 7, dilation: 1, steps: 300),
    ]

    /// Relative max error of `got` against `want`.
    static func error(_ got: [Float], _ want: [Float]) -> Float {
        var worst: Float = 0, scale: Float = 1e-6
        for (a, b) in zip(got, want) {
            worst = max(worst, abs(a - b))
            scale = max(scale, abs(b))
        }
        return worst / scale
    }

    @Test func `the SIMD convolution matches the scalar reference`() {
        var random = TestRandom(seed: 7)
        for c in Self.cases {
            let stride = c.steps + 3, pad = (c.kernel - 1) * c.dilation / 2
            let x = (0..<c.inputs * stride).map { _ in random.float(-1, 1) }
            let w = (0..<c.out * c.kernel * c.inputs).map { _ in random.float(-0.5, 0.5) }
            let bias = (0..<c.out).map { _ in random.float(-0.1, 0.1) }
            let start = (0..<c.out * c.steps).map { _ in random.float(-1, 1) }
            let residual = (0..<c.out * c.steps).map { _ in random.float(-1, 1) }
            for (accumulate, slope, withResidual) in [(false, Float(1), false), (true, Float(1), true), (false, Float(0.1), true), (true, Float(0), false)] {
                var fast = start, slow = start
                let r: [Float]? = withResidual ? residual : nil
                od_conv1d(Int64(c.out), Int64(c.inputs), Int64(c.kernel), Int64(c.dilation), Int64(pad), slope, w, bias, r, x, Int64(stride), Int64(c.steps),
                          &fast, Int64(c.steps), 0, Int64(c.steps), accumulate ? 1 : 0)
                od_conv1d_scalar(Int64(c.out), Int64(c.inputs), Int64(c.kernel), Int64(c.dilation), Int64(pad), slope, w, bias, r, x, Int64(stride), Int64(c.steps),
                                 &slow, Int64(c.steps), 0, Int64(c.steps), accumulate ? 1 : 0)
                #expect(Self.error(fast, slow) < 1e-5, "\(c) accumulate \(accumulate) slope \(slope) residual \(withResidual)")
            }
        }
    }

    @Test func `the scalar reference computes a cross-correlation with dilation`() {
        // One channel, taps (1, 10, 100), dilation 2, padding 2: out[t] = x[t−2] + 10·x[t] + 100·x[t+2] + bias,
        // with x zero outside its 5 steps.
        let x: [Float] = [1, 2, 3, 4, 5]
        for kernel in [od_conv1d_scalar, od_conv1d] {
            var out = [Float](repeating: 0, count: 5)
            kernel(1, 1, 3, 2, 2, 1, [1, 10, 100], [0.5], nil, x, 5, 5, &out, 5, 0, 5, 0)
            let want: [Float] = [310.5, 420.5, 531.5, 42.5, 53.5]  // e.g. t = 2: 1 + 30 + 500 + 0.5
            #expect(out == want)
        }
    }

    @Test func `splitting the steps over threads gives the same output`() {
        var random = TestRandom(seed: 11)
        let shape = Conv1D.Shape(outChannels: 64, inChannels: 64, kernel: 5, dilation: 2)
        let steps = 1000, stride = steps
        let x = (0..<64 * stride).map { _ in random.float(-1, 1) }
        let w = (0..<64 * 5 * 64).map { _ in random.float(-0.2, 0.2) }
        var one = [Float](repeating: 0, count: 64 * steps), two = one
        x.withUnsafeBufferPointer { xp in
            w.withUnsafeBufferPointer { wp in
                Conv1D.apply(shape, weights: wp.baseAddress!, bias: nil, input: xp.baseAddress!, inputStride: stride, inputLength: steps, padLeft: 4,
                             output: &one, outputStride: steps, steps: steps, threads: 1)
                Conv1D.apply(shape, weights: wp.baseAddress!, bias: nil, input: xp.baseAddress!, inputStride: stride, inputLength: steps, padLeft: 4,
                             output: &two, outputStride: steps, steps: steps, threads: 3)
            }
        }
        #expect(one == two)
    }

    @Test func `splitting the output channels of a short sequence over threads gives the same output`() {
        // 40 steps are three 16-step blocks, too few to share, so two threads take 6-row blocks
        // of the 100 channels (the last block partial), with bias, residual and accumulation.
        var random = TestRandom(seed: 13)
        let shape = Conv1D.Shape(outChannels: 100, inChannels: 64, kernel: 3, dilation: 1)
        let steps = 40
        let x = (0..<64 * steps).map { _ in random.float(-1, 1) }
        let w = (0..<100 * 3 * 64).map { _ in random.float(-0.2, 0.2) }
        let bias = (0..<100).map { _ in random.float(-0.1, 0.1) }
        let residual = (0..<100 * steps).map { _ in random.float(-1, 1) }
        let start = (0..<100 * steps).map { _ in random.float(-1, 1) }
        func run(threads: Int) -> [Float] {
            var out = start
            x.withUnsafeBufferPointer { xp in
                w.withUnsafeBufferPointer { wp in
                    out.withUnsafeMutableBufferPointer { op in
                        Conv1D.apply(shape, weights: wp.baseAddress!, bias: bias, residual: residual, input: xp.baseAddress!, inputStride: steps,
                                     inputLength: steps, padLeft: 1, inputSlope: 0.1, output: op.baseAddress!, outputStride: steps,
                                     steps: steps, accumulate: true, threads: threads)
                    }
                }
            }
            return out
        }
        let one = run(threads: 1), two = run(threads: 2)
        var reference = start
        od_conv1d_scalar(100, 64, 3, 1, 1, 0.1, w, bias, residual, x, Int64(steps), Int64(steps), &reference, Int64(steps), 0, Int64(steps), 1)
        #expect(one == two)
        #expect(Self.error(two, reference) < 1e-5)
    }
}
