import Foundation
import Formats

/// Reading the lukemelas/efficientnet_pytorch state dict and folding each BatchNorm into the
/// convolution before it, so inference is convolution + bias + clamp only.
extension EfficientNetLite0 {
    /// BatchNorm epsilon of the TensorFlow-trained Lite models (torch's default would be 1e-5).
    static let batchNormEpsilon = 1e-3
    /// (repeats, stride of the first block) per stage: EfficientNet-B0's layout.
    static let stages = [(1, 1), (2, 2), (2, 2), (3, 2), (3, 1), (4, 2), (1, 1)]

    /// Maps and reads the checkpoint, checks every shape, folds the batch norms.
    package static func load(checkpoint: URL) throws(ModelError) -> EfficientNetLite0 {
        let file: TorchCheckpoint
        do { file = try TorchCheckpoint.open(path: checkpoint.path) } catch { throw .format(error) }
        var reader = WeightReader(file: file)
        let stem = try reader.conv("_conv_stem.weight", bn: "_bn0", layout: .spatial)
        var blocks: [Block] = []
        var channels = stem.outChannels
        for (stride, index) in zip(stages.flatMap { r, s in (0..<r).map { $0 == 0 ? s : 1 } }, 0...) {
            let p = "_blocks.\(index)."
            let expand = file.tensorInfos[p + "_expand_conv.weight"] == nil
                ? nil : try reader.conv(p + "_expand_conv.weight", bn: p + "_bn0", layout: .pointwise)
            let depthwise = try reader.conv(p + "_depthwise_conv.weight", bn: p + "_bn1", layout: .depthwise)
            let project = try reader.conv(p + "_project_conv.weight", bn: p + "_bn2", layout: .pointwise)
            let hidden = expand?.outChannels ?? channels
            guard expand?.inChannels ?? channels == channels, depthwise.outChannels == hidden,
                  project.inChannels == hidden else {
                throw .shapeMismatch(tensor: p + "_project_conv.weight", expected: [project.outChannels, hidden, 1, 1],
                                     found: [project.outChannels, project.inChannels, 1, 1])
            }
            blocks.append(Block(expand: expand, depthwise: depthwise, project: project, stride: stride,
                                residual: stride == 1 && channels == project.outChannels))
            channels = project.outChannels
        }
        guard file.tensorInfos["_blocks.\(blocks.count)._depthwise_conv.weight"] == nil else {
            throw .invalidHyperparameter(key: "blocks", value: "more than \(blocks.count)")
        }
        let head = try reader.conv("_conv_head.weight", bn: "_bn1", layout: .pointwise)
        guard head.inChannels == channels else {
            throw .shapeMismatch(tensor: "_conv_head.weight", expected: [head.outChannels, channels, 1, 1],
                                 found: [head.outChannels, head.inChannels, 1, 1])
        }
        let fcWeight = try reader.floats("_fc.weight", shape: [classCount, head.outChannels])
        let fcBias = try reader.floats("_fc.bias", shape: [classCount])
        return EfficientNetLite0(stem: stem, blocks: blocks, head: head, fcWeight: fcWeight, fcBias: fcBias)
    }
}

/// Reads tensors by name with their expected shapes; folds BatchNorm into convolutions.
private struct WeightReader {
    let file: TorchCheckpoint

    enum Layout {
        /// (out, in, k, k) → (out, k, k, in): the im2col row order.
        case spatial
        /// (out, in, 1, 1) → (out, in).
        case pointwise
        /// (channels, 1, k, k) → (k, k, channels): each tap's channels contiguous.
        case depthwise
    }

    func floats(_ name: String, shape: [Int]? = nil) throws(ModelError) -> [Float] {
        guard let info = file.tensorInfos[name] else { throw .format(.missingTensor(name: name)) }
        if let shape, info.shape != shape { throw .shapeMismatch(tensor: name, expected: shape, found: info.shape) }
        do { return try file.floats(name) } catch { throw .format(error) }
    }

    mutating func conv(_ name: String, bn: String, layout: Layout) throws(ModelError) -> FoldedConv {
        guard let info = file.tensorInfos[name], info.shape.count == 4 else {
            throw .format(.missingTensor(name: name))
        }
        let (out, inC, kh, kw) = (info.shape[0], info.shape[1], info.shape[2], info.shape[3])
        let expectedIn = layout == .depthwise ? 1 : inC
        guard kh == kw, inC == expectedIn, layout != .pointwise || kh == 1, layout != .depthwise || [3, 5].contains(kh) else {
            throw .shapeMismatch(tensor: name, expected: [out, expectedIn, layout == .pointwise ? 1 : kh, kh], found: info.shape)
        }
        let w = try floats(name)
        let gamma = try floats(bn + ".weight", shape: [out]), beta = try floats(bn + ".bias", shape: [out])
        let mean = try floats(bn + ".running_mean", shape: [out]), variance = try floats(bn + ".running_var", shape: [out])
        // y = (conv - mean) / sqrt(var + eps) * gamma + beta = conv·scale + (beta - mean·scale).
        var scale = [Float](repeating: 0, count: out), bias = [Float](repeating: 0, count: out)
        for c in 0..<out {
            let s = Double(gamma[c]) / (Double(variance[c]) + EfficientNetLite0.batchNormEpsilon).squareRoot()
            scale[c] = Float(s)
            bias[c] = Float(Double(beta[c]) - Double(mean[c]) * s)
        }
        let k = kh
        var folded = [Float](repeating: 0, count: w.count)
        switch layout {
        case .pointwise:
            for i in 0..<w.count { folded[i] = w[i] * scale[i / inC] }
        case .spatial:
            for co in 0..<out { for ci in 0..<inC { for ky in 0..<k { for kx in 0..<k {
                folded[((co * k + ky) * k + kx) * inC + ci] = w[((co * inC + ci) * k + ky) * k + kx] * scale[co]
            } } } }
        case .depthwise:
            for c in 0..<out { for t in 0..<(k * k) { folded[t * out + c] = w[c * k * k + t] * scale[c] } }
        }
        return FoldedConv(weight: folded, bias: bias, outChannels: out, inChannels: layout == .depthwise ? out : inC,
                          kernel: k)
    }
}
