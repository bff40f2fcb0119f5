import CKernels

/// HiFi-GAN generator (Kong et al. 2020) as VITS uses it: conv_pre, then per stage a leaky ReLU
/// (0.1), a transposed-conv upsampler and the mean of several residual blocks of different
/// kernels (type 2 blocks: leaky ReLU, dilated conv, residual add, per conv), then leaky ReLU
/// (0.01), conv_post and tanh. Kernels and dilations come from the weights and the graph.
struct VITSDecoder: Sendable {
    struct Stage: Sendable {
        let upsample: ConvTransposeLayer
        let blocks: [[ConvLayer]]  // residual blocks, each a list of convs
    }

    let pre: ConvLayer
    let stages: [Stage]
    let post: ConvLayer

    init(_ source: VITSWeightSource) throws(ModelError) {
        pre = try source.conv("dec.conv_pre")
        var ups: [ConvTransposeLayer] = []
        while source.model.initializers["dec.ups.\(ups.count).bias"] != nil { ups.append(try source.convTranspose("dec.ups.\(ups.count)")) }
        var blocks: [[ConvLayer]] = []
        while source.model.initializers["dec.resblocks.\(blocks.count).convs.0.bias"] != nil {
            var convs: [ConvLayer] = []
            while source.model.initializers["dec.resblocks.\(blocks.count).convs.\(convs.count).bias"] != nil {
                convs.append(try source.conv("dec.resblocks.\(blocks.count).convs.\(convs.count)"))
            }
            blocks.append(convs)
        }
        guard !ups.isEmpty, !blocks.isEmpty, blocks.count % ups.count == 0 else {
            throw .invalidHyperparameter(key: "dec.resblocks per upsampler", value: "\(blocks.count) / \(ups.count)")
        }
        let perStage = blocks.count / ups.count
        stages = ups.enumerated().map { i, up in Stage(upsample: up, blocks: Array(blocks[i * perStage..<(i + 1) * perStage])) }
        post = try source.conv("dec.conv_post", bias: source.model.initializers["dec.conv_post.bias"] != nil)
    }

    var byteCount: Int {
        pre.byteCount + post.byteCount + stages.reduce(0) { sum, s in
            sum + s.upsample.byteCount + s.blocks.reduce(0) { $0 + $1.reduce(0) { $0 + $1.byteCount } }
        }
    }

    /// Samples from latent frames (channels, frames); frames × product of strides samples.
    func callAsFunction(_ z: FeatureMap, threads: Int) -> [Float] {
        var x = pre(z, threads: threads)
        for stage in stages { x = stage(x, threads: threads) }
        var out = post(x, inputSlope: 0.01, threads: threads)
        out.data.withUnsafeMutableBufferPointer { od_tanh($0.baseAddress!, $0.baseAddress!, Int64($0.count)) }
        return out.data
    }
}
