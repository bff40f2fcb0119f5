import Foundation

/// VITS's dilated depth-separable convolution stack (`DDSConv`): per layer a depthwise kernel-3
/// conv with dilation 3^l, LayerNorm, GELU, a 1×1 conv, LayerNorm, GELU, and a residual add.
struct VITSDDSConv: Sendable {
    struct Layer: Sendable {
        let depthwise: [Float]  // (channels, kernel)
        let depthwiseBias: [Float]
        let kernel: Int
        let dilation: Int
        let pointwise: ConvLayer
        let norm1Gamma, norm1Beta, norm2Gamma, norm2Beta: [Float]
    }

    let channels: Int
    let layers: [Layer]

    init(_ source: VITSWeightSource, prefix: String, channels: Int) throws(ModelError) {
        self.channels = channels
        var layers: [Layer] = []
        while source.model.initializers["\(prefix).convs_sep.\(layers.count).weight"] != nil {
            let l = layers.count
            let dims = source.model.initializers["\(prefix).convs_sep.\(l).weight"]?.dims ?? []
            guard dims.count == 3, dims[0] == channels, dims[1] == 1 else {
                throw .shapeMismatch(tensor: "\(prefix).convs_sep.\(l).weight", expected: [channels, 1, -1], found: dims)
            }
            var dilation = 1
            for _ in 0..<l { dilation *= dims[2] }
            layers.append(Layer(
                depthwise: try source.floats("\(prefix).convs_sep.\(l).weight", shape: dims),
                depthwiseBias: try source.floats("\(prefix).convs_sep.\(l).bias", shape: [channels]),
                kernel: dims[2], dilation: dilation, pointwise: try source.conv("\(prefix).convs_1x1.\(l)"),
                norm1Gamma: try source.floats("\(prefix).norms_1.\(l).gamma", shape: [channels]),
                norm1Beta: try source.floats("\(prefix).norms_1.\(l).beta", shape: [channels]),
                norm2Gamma: try source.floats("\(prefix).norms_2.\(l).gamma", shape: [channels]),
                norm2Beta: try source.floats("\(prefix).norms_2.\(l).beta", shape: [channels])))
        }
        guard !layers.isEmpty else { throw .format(.missingTensor(name: "\(prefix).convs_sep.0.weight")) }
        self.layers = layers
    }

    var byteCount: Int {
        layers.reduce(0) { $0 + $1.pointwise.byteCount + 4 * ($1.depthwise.count + 5 * channels) }
    }

    /// x + g when a conditioning input is given, then the stack.
    func callAsFunction(_ input: FeatureMap, conditioning: FeatureMap?, threads: Int) -> FeatureMap {
        var x = input
        if let conditioning { x.add(conditioning) }
        let n = x.length
        for layer in layers {
            var y = FeatureMap(channels: channels, length: n)
            let half = (layer.kernel - 1) * layer.dilation / 2
            for c in 0..<channels {
                for t in 0..<n {
                    var s = layer.depthwiseBias[c]
                    for k in 0..<layer.kernel {
                        let src = t + k * layer.dilation - half
                        if src >= 0 && src < n { s += layer.depthwise[c * layer.kernel + k] * x.data[c * n + src] }
                    }
                    y.data[c * n + t] = s
                }
            }
            y.layerNorm(gamma: layer.norm1Gamma, beta: layer.norm1Beta)
            y.gelu()
            y = layer.pointwise(y, threads: threads)
            y.layerNorm(gamma: layer.norm2Gamma, beta: layer.norm2Beta)
            y.gelu()
            x.add(y)
        }
        return x
    }
}
