import Kernels

/// Channels-first activations of one utterance: `data[c * length + t]`. // (channels, length)
struct FeatureMap {
    var channels: Int
    var length: Int
    var data: [Float]

    init(channels: Int, length: Int, data: [Float]? = nil) {
        precondition(data == nil || data!.count == channels * length, "feature map size")
        self.channels = channels
        self.length = length
        self.data = data ?? [Float](repeating: 0, count: channels * length)
    }

    /// Channels `range` as a new map (the halves of a coupling layer, means vs log-scales).
    func slice(_ range: Range<Int>) -> FeatureMap {
        FeatureMap(channels: range.count, length: length, data: Array(data[range.lowerBound * length..<range.upperBound * length]))
    }

    /// A copy with `left`/`right` zero steps around each channel, for "same" convolutions.
    func padded(left: Int, right: Int) -> [Float] {
        let stride = length + left + right
        var out = [Float](repeating: 0, count: channels * stride)
        data.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for c in 0..<channels {
                    (dst.baseAddress! + c * stride + left).update(from: src.baseAddress! + c * length, count: length)
                }
            }
        }
        return out
    }

    mutating func add(_ other: FeatureMap) {
        precondition(other.data.count == data.count, "feature map add")
        for i in data.indices { data[i] += other.data[i] }
    }

    mutating func leakyReLU(_ slope: Float) {
        for i in data.indices where data[i] < 0 { data[i] *= slope }
    }

    func leakyReLUed(_ slope: Float) -> FeatureMap {
        var copy = self
        copy.leakyReLU(slope)
        return copy
    }

    /// LayerNorm over the channels at each step (VITS `modules.LayerNorm`, eps 1e-5).
    mutating func layerNorm(gamma: [Float], beta: [Float]) {
        let n = Float(channels)
        for t in 0..<length {
            var mean: Float = 0
            for c in 0..<channels { mean += data[c * length + t] }
            mean /= n
            var variance: Float = 0
            for c in 0..<channels {
                let d = data[c * length + t] - mean
                variance += d * d
            }
            let inv = 1 / (variance / n + 1e-5).squareRoot()
            for c in 0..<channels { data[c * length + t] = (data[c * length + t] - mean) * inv * gamma[c] + beta[c] }
        }
    }
}

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

    /// The output has as many steps as the input (2·padding = (kernel − 1)·dilation in every VITS conv).
    func callAsFunction(_ x: FeatureMap, threads: Int) -> FeatureMap {
        var out = FeatureMap(channels: shape.outChannels, length: x.length)
        run(x, into: &out, accumulate: false, threads: threads)
        return out
    }

    /// out (+)= conv(x); `out` must have the output's shape.
    func run(_ x: FeatureMap, into out: inout FeatureMap, accumulate: Bool, threads: Int) {
        precondition(x.channels == shape.inChannels && out.channels == shape.outChannels && out.length == x.length, "conv shape")
        let span = (shape.kernel - 1) * shape.dilation
        let input = x.padded(left: padding, right: span - padding)
        let stride = x.length + span
        input.withUnsafeBufferPointer { xp in
            weights.withUnsafeBufferPointer { wp in
                out.data.withUnsafeMutableBufferPointer { op in
                    if let bias {
                        bias.withUnsafeBufferPointer { bp in
                            Conv1D.apply(shape, weights: wp.baseAddress!, bias: bp.baseAddress!, input: xp.baseAddress!, inputStride: stride,
                                         output: op.baseAddress!, outputStride: x.length, steps: x.length, accumulate: accumulate, threads: threads)
                        }
                    } else {
                        Conv1D.apply(shape, weights: wp.baseAddress!, bias: nil, input: xp.baseAddress!, inputStride: stride,
                                     output: op.baseAddress!, outputStride: x.length, steps: x.length, accumulate: accumulate, threads: threads)
                    }
                }
            }
        }
    }
}
