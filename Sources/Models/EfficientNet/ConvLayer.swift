import Kernels

/// A Conv1d with "same"-style zero padding, its weights repacked to (out, kernel, in) for `od_conv1d`.
struct ConvLayer: Sendable {
    let shape: Conv1D.Shape
    let padding: Int
    let weights: [Float]  // (out, kernel, in)
    let bias: [Float]?    // (out)

    /// `weight` in PyTorch order (out, in, kernel).
    init(weight: [Float], bias: [Float]?, outChannels: Int, inChannels: Int, kernel: Int, dilation: Int, padding: Int) {
        shape = Conv1D.Shape(outChannels: outChannels, inChannels: inChannels, kernel: kernel, dilation: dilation)
        self.padding = padding
        var packed = [Float](repeating: 0, count: weight.count)
        for o in 0..<outChannels {
            for i in 0..<inChannels {
                for k in 0..<kernel { packed[(o * kernel + k) * inChannels + i] = weight[(o * inChannels + i) * kernel + k] }
            }
        }
        weights = packed
        self.bias = bias
    }

    var byteCount: Int { 4 * (weights.count + (bias?.count ?? 0)) }

    /// Steps an output reads past itself on the farther side (the padding on both sides when symmetric).
    var reach: Int { max(padding, (shape.kernel - 1) * shape.dilation - padding) }

    /// The output has as many steps as the input (2·padding = (kernel − 1)·dilation in every VITS conv).
    func callAsFunction(_ x: FeatureMap, inputSlope: Float = 1, threads: Int) -> FeatureMap {
        var out = FeatureMap(channels: shape.outChannels, length: x.length)
        run(x, into: &out, accumulate: false, inputSlope: inputSlope, threads: threads)
        return out
    }

    /// out (+)= residual + conv(leakyReLU(x, inputSlope)); `out` (and `residual`) must have the output's shape.
    func run(_ x: FeatureMap, into out: inout FeatureMap, accumulate: Bool, inputSlope: Float = 1, residual: FeatureMap? = nil,
             threads: Int) {
        precondition(x.channels == shape.inChannels && out.channels == shape.outChannels && out.length == x.length, "conv shape")
        precondition(residual.map { $0.data.count == out.data.count } ?? true, "residual shape")
        let residualData = residual?.data ?? []
        residualData.withUnsafeBufferPointer { rp in
            x.data.withUnsafeBufferPointer { xp in
                weights.withUnsafeBufferPointer { wp in
                    out.data.withUnsafeMutableBufferPointer { op in
                        func convolve(_ bp: UnsafePointer<Float>?) {
                            Conv1D.apply(shape, weights: wp.baseAddress!, bias: bp, residual: residual == nil ? nil : rp.baseAddress,
                                         input: xp.baseAddress!, inputStride: x.length,
                                         inputLength: x.length, padLeft: padding, inputSlope: inputSlope, output: op.baseAddress!, outputStride: x.length,
                                         steps: x.length, accumulate: accumulate, threads: threads)
                        }
                        if let bias { bias.withUnsafeBufferPointer { convolve($0.baseAddress) } } else { convolve(nil) }
                    }
                }
            }
        }
    }

    /// Runs `body` with the repacked weights and the bias (nil without one).
    func withPointers<R>(_ body: (UnsafePointer<Float>, UnsafePointer<Float>?) -> R) -> R {
        weights.withUnsafeBufferPointer { wp in
            if let bias { return bias.withUnsafeBufferPointer { body(wp.baseAddress!, $0.baseAddress) } }
            return body(wp.baseAddress!, nil)
        }
    }
}
