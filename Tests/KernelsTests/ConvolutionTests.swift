import CKernels
import Kernels
import Testing

/// The image-network kernels against their scalar references, over awkward channel counts
/// (not multiples of 8), both kernel sizes, both strides and odd image sizes, where the
/// TF-SAME padding is asymmetric.
@Suite struct ConvolutionTests {
    static func normalizedError(_ a: [Float], _ b: [Float]) -> Double {
        var num = 0.0, den = 0.0
        for (x, y) in zip(a, b) {
            num += Double(x - y) * Double(x - y)
            den += Double(y) * Double(y)
        }
        return (num / max(den, 1e-30)).squareRoot()
    }

    @Test func `TF-SAME padding puts the smaller half before, as the reference says for 224 inputs`() {
        #expect(Convolution.samePadding(input: 224, kernel: 3, stride: 2) == (112, 0, 1))
        #expect(Convolution.samePadding(input: 224, kernel: 5, stride: 2) == (112, 1, 2))
        #expect(Convolution.samePadding(input: 56, kernel: 5, stride: 1) == (56, 2, 2))
        #expect(Convolution.samePadding(input: 7, kernel: 3, stride: 2) == (4, 1, 1))
        #expect(Convolution.samePadding(input: 1, kernel: 5, stride: 2) == (1, 2, 2))
    }

    @Test(arguments: [(3, 1, 13), (3, 2, 24), (5, 1, 8), (5, 2, 21), (3, 2, 1), (5, 1, 40)])
    func `depthwise convolution matches the scalar reference`(kernel: Int, stride: Int, channels: Int) {
        var random = TestRandom(seed: UInt64(kernel * 1000 + stride * 100 + channels))
        let (h, w) = (11, 9)
        let input = random.activations(h * w * channels)
        let weight = random.activations(kernel * kernel * channels)
        let bias = random.activations(channels)
        let (window, oh, ow) = Convolution.Window.same(kernel: kernel, stride: stride, height: h, width: w)
        for clamp: ClosedRange<Float>? in [nil, 0...6] {
            for threads in [1, 2] {
                var fast = [Float](repeating: .nan, count: oh * ow * channels)
                var reference = fast
                Convolution.depthwise(input, height: h, width: w, channels: channels, weight: weight, bias: bias,
                                      window: window, outHeight: oh, outWidth: ow, clamp: clamp, out: &fast,
                                      threads: threads)
                od_depthwise_hwc_scalar(input, Int64(h), Int64(w), Int64(channels), weight, bias, Int64(kernel),
                                        Int64(stride), Int64(window.padTop), Int64(window.padLeft), Int64(ow),
                                        clamp?.lowerBound ?? -.infinity, clamp?.upperBound ?? .infinity, &reference, 0,
                                        Int64(oh))
                #expect(Self.normalizedError(fast, reference) < 1e-6, "clamp \(String(describing: clamp)) threads \(threads)")
                if clamp != nil { #expect(fast.allSatisfy { (0...6).contains($0) }) }
            }
        }
    }

    @Test(arguments: [(3, 2, 3, 32), (3, 1, 5, 7), (5, 2, 4, 17), (1, 1, 19, 33)])
    func `dense convolution through im2col and GEMM matches the direct scalar loop`(kernel: Int, stride: Int,
                                                                                     inChannels: Int, outChannels: Int) {
        var random = TestRandom(seed: UInt64(kernel * 7 + inChannels * 31 + outChannels))
        let (h, w) = (23, 17)
        let input = random.activations(h * w * inChannels)
        let weight = random.activations(outChannels * kernel * kernel * inChannels)
        let bias = random.activations(outChannels)
        let (window, oh, ow) = Convolution.Window.same(kernel: kernel, stride: stride, height: h, width: w)
        for threads in [1, 2] {
            var scratch = [Float](repeating: 0, count: oh * ow * kernel * kernel * inChannels)
            var fast = [Float](repeating: .nan, count: oh * ow * outChannels)
            var reference = fast
            Convolution.conv2d(input, height: h, width: w, inChannels: inChannels, weight: weight, bias: bias,
                               outChannels: outChannels, window: window, outHeight: oh, outWidth: ow, clamp: 0...6,
                               scratch: &scratch, out: &fast, threads: threads)
            od_conv2d_hwc_scalar(input, Int64(h), Int64(w), Int64(inChannels), weight, bias, Int64(outChannels),
                                 Int64(kernel), Int64(stride), Int64(window.padTop), Int64(window.padLeft), Int64(oh),
                                 Int64(ow), 0, 6, &reference)
            #expect(Self.normalizedError(fast, reference) < 1e-6, "threads \(threads)")
        }
    }

    @Test func `a pointwise convolution with accumulate adds the residual it overwrites`() {
        var random = TestRandom(seed: 42)
        let (pixels, inC, outC) = (3000, 24, 40)  // enough work that two threads split the rows
        let input = random.activations(pixels * inC), weight = random.activations(outC * inC)
        let bias = random.activations(outC), residual = random.activations(pixels * outC)
        var reference = [Float](repeating: 0, count: pixels * outC)
        od_conv2d_hwc_scalar(input, Int64(pixels), 1, Int64(inC), weight, bias, Int64(outC), 1, 1, 0, 0,
                             Int64(pixels), 1, -.infinity, .infinity, &reference)
        for i in reference.indices { reference[i] += residual[i] }
        for threads in [1, 2] {
            var out = residual
            Convolution.pointwise(input, pixels: pixels, inChannels: inC, weight: weight, bias: bias, outChannels: outC,
                                  clamp: nil, accumulate: true, out: &out, threads: threads)
            #expect(Self.normalizedError(out, reference) < 1e-6, "threads \(threads)")
        }
    }

    @Test(arguments: [(49, 1280), (5, 13), (1, 3)])
    func `global average pooling matches the double-precision reference`(pixels: Int, channels: Int) {
        var random = TestRandom(seed: UInt64(pixels * channels))
        let input = random.activations(pixels * channels)
        var fast = [Float](repeating: .nan, count: channels), reference = fast
        Convolution.globalAveragePool(input, pixels: pixels, channels: channels, out: &fast)
        od_global_avg_pool_hwc_scalar(input, Int64(pixels), Int64(channels), &reference)
        for (a, b) in zip(fast, reference) { #expect(abs(a - b) <= 1e-5 * max(1, abs(b))) }
    }

    @Test func `the direct reference itself computes a hand-checked 2x2 example`() {
        // One channel, 3x3 kernel of ones, SAME padding: each output is the sum of its neighbours.
        let input: [Float] = [1, 2, 3, 4]
        let weight = [Float](repeating: 1, count: 9)
        var out = [Float](repeating: 0, count: 4)
        od_conv2d_hwc_scalar(input, 2, 2, 1, weight, nil, 1, 3, 1, 1, 1, 2, 2, -.infinity, .infinity, &out)
        #expect(out == [10, 10, 10, 10])
        var dw = [Float](repeating: 0, count: 4)
        od_depthwise_hwc_scalar(input, 2, 2, 1, weight, [0.5], 3, 2, 0, 0, 1, 0, 6, &dw, 0, 1)
        #expect(dw[0] == 6)  // stride 2, pad 0/1: 1+2+3+4 + 0.5 = 10.5, clamped to 6
    }
}
