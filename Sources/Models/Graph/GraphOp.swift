import Formats

/// One graph node's operator with its attributes parsed and checked once, at load: an attribute
/// value the executor does not implement is refused then, naming the node, never guessed at run
/// time. Semantics follow the ONNX operator specification (onnx/docs/Operators.md) at opsets 11–12.
enum GraphOp: Sendable {
    case conv(ConvSpec)
    case convTranspose(ConvTransposeSpec)
    /// Inference batch norm folded to y = x · scale[c] + shift[c].
    case batchNorm(scale: [Float], shift: [Float])
    case binary(BinaryOp)
    case clip(min: Float, max: Float)
    case relu, sigmoid, sqrt
    case hardSigmoid(alpha: Float, beta: Float)
    case globalAveragePool
    case maxPool(PoolSpec)
    case averagePool(PoolSpec, countIncludePad: Bool)
    /// Nearest-neighbour resize, `asymmetric` coordinates, `floor` rounding: out(y) = in(floor(y / scale)).
    case resizeNearest
    case concat(axis: Int)
    case reshape, shape, slice, identity, matMul
    case cast(toInt: Bool, int32: Bool)
    case squeeze(axes: [Int]?)
    case transpose(perm: [Int]?)
    case reduceMean(axes: [Int]?, keepDims: Bool)
    /// Opset < 13 softmax: the input is seen as a matrix (product of dims before `axis`) x (the rest).
    case softmax(axis: Int)

    enum BinaryOp: Sendable { case add, sub, mul, div, pow }

    /// Whether the operator copes with zero-element inputs (shape plumbing does; kernels do not).
    var acceptsEmpty: Bool {
        switch self {
        case .concat, .reshape, .shape, .slice, .identity, .cast, .squeeze, .transpose: true
        default: false
        }
    }

    struct ConvSpec: Sendable {
        /// (outChannels, inChannels / group, kernelH, kernelW)
        let weight: [Float]
        let bias: [Float]?
        let outChannels: Int, groupInChannels: Int, group: Int
        let kernelH: Int, kernelW: Int, strideH: Int, strideW: Int
        let padTop: Int, padLeft: Int, padBottom: Int, padRight: Int
    }

    struct ConvTransposeSpec: Sendable {
        /// Weight transposed to (outChannels · kernelH · kernelW, inChannels), one GEMM row per output tap.
        let taps: [Float]
        let bias: [Float]?
        let inChannels: Int, outChannels: Int
        let kernelH: Int, kernelW: Int, strideH: Int, strideW: Int
        let padTop: Int, padLeft: Int, padBottom: Int, padRight: Int
    }

    struct PoolSpec: Sendable {
        let kernelH: Int, kernelW: Int, strideH: Int, strideW: Int
        let padTop: Int, padLeft: Int, padBottom: Int, padRight: Int
    }
}

extension GraphOp {
    /// Parses `node`; `constants` holds every value known at load (Constant nodes, initializers).
    static func parse(_ node: ONNXNode, constants: [String: GraphTensor], bytes: UnsafeRawBufferPointer) throws(ModelError) -> GraphOp {
        let name = node.name.isEmpty ? node.outputs.first ?? node.opType : node.name
        func refuse(_ attribute: String, _ value: Any) -> ModelError {
            .unsupportedAttribute(node: name, attribute: attribute, value: "\(value)")
        }
        func string(_ key: String) -> String? {
            guard case .bytes(let range) = node.attributes[key] else { return nil }
            return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        }
        func constant(_ index: Int) throws(ModelError) -> GraphTensor {
            guard index < node.inputs.count, let value = constants[node.inputs[index]] else {
                throw .invalidGraphValue(node: name, detail: "input \(index) must be a constant")
            }
            return value
        }
        func constantFloats(_ index: Int) throws(ModelError) -> [Float] {
            guard let values = try constant(index).floats else {
                throw .invalidGraphValue(node: name, detail: "input \(index) must be a float constant")
            }
            return values
        }
        func requireInputs(_ range: ClosedRange<Int>) throws(ModelError) {
            guard range.contains(node.inputs.count), !node.outputs.isEmpty else {
                throw .invalidGraphValue(node: name, detail: "\(node.inputs.count) inputs, expected \(range)")
            }
        }
        func noAutoPad() throws(ModelError) {
            if let pad = string("auto_pad"), pad != "NOTSET" { throw refuse("auto_pad", pad) }
            if let dilations = node.ints("dilations"), dilations.contains(where: { $0 != 1 }) { throw refuse("dilations", dilations) }
        }
        func window(_ kernel: [Int]) throws(ModelError) -> (strides: [Int], pads: [Int]) {
            let strides = node.ints("strides") ?? [1, 1]
            let pads = node.ints("pads") ?? [0, 0, 0, 0]
            guard kernel.count == 2, kernel.allSatisfy({ $0 > 0 && $0 <= 64 }) else { throw refuse("kernel_shape", kernel) }
            guard strides.count == 2, strides.allSatisfy({ $0 > 0 && $0 <= 64 }) else { throw refuse("strides", strides) }
            guard pads.count == 4, pads.allSatisfy({ $0 >= 0 && $0 < 64 }) else { throw refuse("pads", pads) }
            return (strides, pads)
        }

        switch node.opType {
        case "Conv":
            try requireInputs(2...3)
            try noAutoPad()
            let weight = try constant(1)
            guard weight.shape.count == 4, let values = weight.floats else { throw refuse("weight shape", weight.shape) }
            let kernel = node.ints("kernel_shape") ?? Array(weight.shape[2...])
            guard kernel == Array(weight.shape[2...]) else { throw refuse("kernel_shape", kernel) }
            let (strides, pads) = try window(kernel)
            let group = node.int("group") ?? 1
            guard group >= 1, weight.shape[0] % group == 0 else { throw refuse("group", group) }
            let bias = node.inputs.count == 3 ? try constantFloats(2) : nil
            if let bias, bias.count != weight.shape[0] { throw refuse("bias size", bias.count) }
            return .conv(ConvSpec(weight: values, bias: bias, outChannels: weight.shape[0], groupInChannels: weight.shape[1],
                                  group: group, kernelH: kernel[0], kernelW: kernel[1], strideH: strides[0], strideW: strides[1],
                                  padTop: pads[0], padLeft: pads[1], padBottom: pads[2], padRight: pads[3]))
        case "ConvTranspose":
            try requireInputs(2...3)
            try noAutoPad()
            if let group = node.int("group"), group != 1 { throw refuse("group", group) }
            if let padding = node.ints("output_padding"), padding.contains(where: { $0 != 0 }) { throw refuse("output_padding", padding) }
            if let shape = node.ints("output_shape") { throw refuse("output_shape", shape) }
            let weight = try constant(1)
            guard weight.shape.count == 4, let values = weight.floats else { throw refuse("weight shape", weight.shape) }
            let (ci, co, kh, kw) = (weight.shape[0], weight.shape[1], weight.shape[2], weight.shape[3])
            let (strides, pads) = try window([kh, kw])
            // (ci, co, kh, kw) → (co·kh·kw, ci)
            var taps = [Float](repeating: 0, count: values.count)
            for i in 0..<ci { for t in 0..<(co * kh * kw) { taps[t * ci + i] = values[i * co * kh * kw + t] } }
            let bias = node.inputs.count == 3 ? try constantFloats(2) : nil
            if let bias, bias.count != co { throw refuse("bias size", bias.count) }
            return .convTranspose(ConvTransposeSpec(taps: taps, bias: bias, inChannels: ci, outChannels: co, kernelH: kh, kernelW: kw,
                                                    strideH: strides[0], strideW: strides[1], padTop: pads[0], padLeft: pads[1],
                                                    padBottom: pads[2], padRight: pads[3]))
        case "BatchNormalization":
            try requireInputs(5...5)
            if let mode = node.int("training_mode"), mode != 0 { throw refuse("training_mode", mode) }
            let epsilon = node.float("epsilon") ?? 1e-5
            let (gamma, beta, mean, variance) = (try constantFloats(1), try constantFloats(2), try constantFloats(3), try constantFloats(4))
            guard beta.count == gamma.count, mean.count == gamma.count, variance.count == gamma.count else {
                throw .invalidGraphValue(node: name, detail: "batch norm parameters of different sizes")
            }
            let scale = gamma.indices.map { gamma[$0] / (variance[$0] + epsilon).squareRoot() }
            return .batchNorm(scale: scale, shift: beta.indices.map { beta[$0] - mean[$0] * scale[$0] })
        case "Add", "Sub", "Mul", "Div", "Pow":
            try requireInputs(2...2)
            let ops: [String: BinaryOp] = ["Add": .add, "Sub": .sub, "Mul": .mul, "Div": .div, "Pow": .pow]
            return .binary(ops[node.opType]!)
        case "Clip":
            try requireInputs(1...3)
            var low = node.float("min") ?? -.infinity, high = node.float("max") ?? .infinity
            for index in 1..<node.inputs.count where !node.inputs[index].isEmpty {
                let bound = try constantFloats(index)
                guard bound.count == 1 else { throw refuse("clip bound size", bound.count) }
                if index == 1 { low = bound[0] } else { high = bound[0] }
            }
            return .clip(min: low, max: high)
        case "Relu": try requireInputs(1...1); return .relu
        case "Sigmoid": try requireInputs(1...1); return .sigmoid
        case "Sqrt": try requireInputs(1...1); return .sqrt
        case "Identity": try requireInputs(1...1); return .identity
        case "HardSigmoid":
            try requireInputs(1...1)
            return .hardSigmoid(alpha: node.float("alpha") ?? 0.2, beta: node.float("beta") ?? 0.5)
        case "GlobalAveragePool": try requireInputs(1...1); return .globalAveragePool
        case "MaxPool", "AveragePool":
            try requireInputs(1...1)
            try noAutoPad()
            if let ceil = node.int("ceil_mode"), ceil != 0 { throw refuse("ceil_mode", ceil) }
            if let order = node.int("storage_order"), order != 0 { throw refuse("storage_order", order) }
            guard node.outputs.count == 1 else { throw refuse("outputs", node.outputs.count) }
            let kernel = node.ints("kernel_shape") ?? []
            let (strides, pads) = try window(kernel)
            let spec = PoolSpec(kernelH: kernel[0], kernelW: kernel[1], strideH: strides[0], strideW: strides[1],
                                padTop: pads[0], padLeft: pads[1], padBottom: pads[2], padRight: pads[3])
            return node.opType == "MaxPool" ? .maxPool(spec) : .averagePool(spec, countIncludePad: (node.int("count_include_pad") ?? 0) != 0)
        case "Resize":
            try requireInputs(3...4)
            if let mode = string("mode"), mode != "nearest" { throw refuse("mode", mode) }
            if let mode = string("coordinate_transformation_mode"), mode != "asymmetric" { throw refuse("coordinate_transformation_mode", mode) }
            if let mode = string("nearest_mode"), mode != "floor" { throw refuse("nearest_mode", mode) }
            if node.inputs.count == 4, !node.inputs[3].isEmpty { throw refuse("sizes", node.inputs[3]) }
            return .resizeNearest
        case "Concat":
            try requireInputs(1...64)
            guard let axis = node.int("axis") else { throw refuse("axis", "missing") }
            return .concat(axis: axis)
        case "Reshape":
            try requireInputs(2...2)
            if let allow = node.int("allowzero"), allow != 0 { throw refuse("allowzero", allow) }
            return .reshape
        case "Shape": try requireInputs(1...1); return .shape
        case "Slice": try requireInputs(3...5); return .slice
        case "MatMul": try requireInputs(2...2); return .matMul
        case "Cast":
            try requireInputs(1...1)
            switch node.int("to") {
            case 1: return .cast(toInt: false, int32: false)
            case 6: return .cast(toInt: true, int32: true)
            case 7: return .cast(toInt: true, int32: false)
            case let other: throw refuse("to", other.map(String.init) ?? "missing")
            }
        case "Squeeze": try requireInputs(1...2); return .squeeze(axes: node.ints("axes"))
        case "Transpose": try requireInputs(1...1); return .transpose(perm: node.ints("perm"))
        case "ReduceMean":
            try requireInputs(1...1)
            return .reduceMean(axes: node.ints("axes"), keepDims: (node.int("keepdims") ?? 1) != 0)
        case "Softmax": try requireInputs(1...1); return .softmax(axis: node.int("axis") ?? 1)
        default:
            throw .unsupportedNode(node: name, op: node.opType)
        }
    }
}
