import Formats

/// Looks up a VITS voice's weights in an ONNX export by their PyTorch names.
///
/// Exports keep most parameter names (`dec.ups.0.weight`), but weights that went through weight
/// normalization are folded into anonymous initializers (`onnx::Conv_8168`). Those are found
/// through the graph: the Conv node whose bias is `<layer>.bias` reads the layer's weight, and its
/// attributes give the dilation and padding.
struct VITSWeightSource {
    let model: ONNXModel
    /// Conv/ConvTranspose nodes by the initializer name of their weight.
    private let convByWeight: [String: ONNXNode]
    /// Weight initializer names by the PyTorch name of the bias that follows them.
    private let weightByBias: [String: String]

    init(model: ONNXModel) {
        self.model = model
        var convByWeight: [String: ONNXNode] = [:], weightByBias: [String: String] = [:]
        for node in model.nodes where node.opType == "Conv" || node.opType == "ConvTranspose" {
            guard node.inputs.count >= 2 else { continue }
            convByWeight[node.inputs[1]] = node
            if node.inputs.count >= 3 { weightByBias[node.inputs[2]] = node.inputs[1] }
        }
        self.convByWeight = convByWeight
        self.weightByBias = weightByBias
    }

    func floats(_ name: String, shape: [Int]) throws(ModelError) -> [Float] {
        guard let tensor = model.initializers[name] else { throw .format(.missingTensor(name: name)) }
        guard tensor.dims == shape else { throw .shapeMismatch(tensor: name, expected: shape, found: tensor.dims) }
        do { return try tensor.floats(in: model.region.bytes) } catch { throw .format(error) }
    }

    /// The initializer holding `<prefix>.weight`, under its own name or found through its bias.
    func weightName(_ prefix: String) throws(ModelError) -> String {
        if model.initializers[prefix + ".weight"] != nil { return prefix + ".weight" }
        if let name = weightByBias[prefix + ".bias"] { return name }
        throw .format(.missingTensor(name: prefix + ".weight"))
    }

    /// The dims of `<prefix>.weight`.
    func weightDims(_ prefix: String) throws(ModelError) -> [Int] {
        let name = try weightName(prefix)
        return model.initializers[name]?.dims ?? []
    }

    /// A Conv1d layer (groups 1) with the dilation and padding its graph node uses.
    func conv(_ prefix: String, bias hasBias: Bool = true) throws(ModelError) -> ConvLayer {
        let name = try weightName(prefix)
        let dims = model.initializers[name]?.dims ?? []
        guard dims.count == 3 else { throw .shapeMismatch(tensor: name, expected: [-1, -1, -1], found: dims) }
        let (dilation, padding) = try attributes(of: name, kernel: dims[2])
        let weight = try floats(name, shape: dims)
        let bias = hasBias ? try floats(prefix + ".bias", shape: [dims[0]]) : nil
        return ConvLayer(weight: weight, bias: bias, outChannels: dims[0], inChannels: dims[1], kernel: dims[2],
                         dilation: dilation, padding: padding)
    }

    /// A ConvTranspose1d layer with the stride and padding its graph node uses.
    func convTranspose(_ prefix: String) throws(ModelError) -> ConvTransposeLayer {
        let name = try weightName(prefix)
        let dims = model.initializers[name]?.dims ?? []
        guard dims.count == 3 else { throw .shapeMismatch(tensor: name, expected: [-1, -1, -1], found: dims) }
        guard let node = convByWeight[name], let stride = node.ints("strides")?.first, stride > 0 else {
            throw .invalidHyperparameter(key: "\(prefix) strides", value: "missing")
        }
        let padding = node.ints("pads")?.first ?? 0
        guard dims[2] % stride == 0, dims[2] - 2 * padding == stride else {
            throw .invalidHyperparameter(key: "\(prefix) kernel/stride/padding", value: "\(dims[2])/\(stride)/\(padding)")
        }
        return ConvTransposeLayer(weight: try floats(name, shape: dims), bias: try floats(prefix + ".bias", shape: [dims[1]]),
                                  inChannels: dims[0], outChannels: dims[1], kernel: dims[2], stride: stride, padding: padding)
    }

    /// Dilation and left padding of the Conv node reading `weight`; "same" padding is required.
    private func attributes(of weight: String, kernel: Int) throws(ModelError) -> (dilation: Int, padding: Int) {
        let node = convByWeight[weight]
        let dilation = node?.ints("dilations")?.first ?? 1
        var pads = node?.ints("pads") ?? [(kernel - 1) * dilation / 2, (kernel - 1) * dilation / 2]
        // The transformer FFN's convs pad with a separate Pad node (pads 0 on the Conv); every VITS
        // conv keeps the sequence length, so that is the same symmetric padding.
        if pads == [0, 0], let node, let producer = model.nodes.first(where: { $0.outputs.first == node.inputs.first }), producer.opType == "Pad" {
            pads = [(kernel - 1) * dilation / 2, (kernel - 1) * dilation / 2]
        }
        guard dilation > 0, pads.count == 2, pads[0] + pads[1] == (kernel - 1) * dilation, node?.ints("strides")?.first ?? 1 == 1 else {
            throw .invalidHyperparameter(key: "\(weight) dilation/pads", value: "\(dilation)/\(pads)")
        }
        return (dilation, pads[0])
    }

    /// The initializer that the graph gathers phoneme embeddings from (`enc_p.emb.weight`, which
    /// exports sometimes rename): the Gather node reading the graph input `input`.
    func embeddingName() throws(ModelError) -> String {
        if model.initializers["enc_p.emb.weight"] != nil { return "enc_p.emb.weight" }
        for node in model.nodes where node.opType == "Gather" && node.inputs.count == 2 && node.inputs[1] == "input" {
            if model.initializers[node.inputs[0]] != nil { return node.inputs[0] }
        }
        throw .format(.missingTensor(name: "enc_p.emb.weight"))
    }
}
