import Formats

/// Runs an ONNX graph of image-network operators (convolutions, pooling, elementwise math, the
/// shape arithmetic exporters emit around them) on the CPU, float32, NCHW, with every shape
/// computed at run time from the input. Built for the PP-OCR det/cls/rec exports; any other
/// operator or attribute value is refused at load with an error naming the node.
///
/// Immutable after load: weights (Constant nodes and initializers) are decoded once and shared;
/// each `run` keeps its own values and drops each one after its last reader.
package final class ONNXGraph: Sendable {
    package let inputNames: [String]
    package let outputNames: [String]
    /// `metadata_props` of the file (the PP-OCR recogniser keeps its character list here).
    package let metadata: [String: String]

    struct Step: Sendable {
        let name: String
        let op: GraphOp
        let inputs: [String]
        let outputs: [String]
        /// Values read for the last time by this step, dropped after it.
        let releases: [String]
    }

    let constants: [String: GraphTensor]
    let steps: [Step]

    /// Bytes of the decoded weights (constants and initializers: float32 and int64 alike take 4
    /// and 8 bytes an element), what the graph holds between runs.
    package var weightBytes: Int {
        constants.values.reduce(0) { total, tensor in
            switch tensor.storage {
            case .floats(let values): total + values.count * MemoryLayout<Float>.size
            case .integers(let values): total + values.count * MemoryLayout<Int64>.size
            }
        }
    }

    package convenience init(path: String) throws(ModelError) {
        let model: ONNXModel
        do { model = try ONNXModel(path: path) } catch { throw .format(error) }
        try self.init(model: model)
    }

    package init(model: ONNXModel) throws(ModelError) {
        let bytes = model.region.bytes
        var constants: [String: GraphTensor] = [:]
        func tensor(_ t: ONNXTensor) throws(ModelError) -> GraphTensor {
            do {
                switch t.dataType {
                case .float: return GraphTensor(shape: t.dims, floats: try t.floats(in: bytes))
                case .int64, .int32: return GraphTensor(shape: t.dims, integers: try t.integers(in: bytes), isInt32: t.dataType == .int32)
                default: throw ModelError.unsupportedTensorType(tensor: t.name, type: "\(t.dataType)")
                }
            } catch let error as FormatError { throw .format(error) } catch let error as ModelError { throw error } catch {
                throw .invalidGraphValue(node: t.name, detail: "\(error)")
            }
        }
        for (name, initializer) in model.initializers { constants[name] = try tensor(initializer) }
        var parsed: [(ONNXNode, GraphOp)] = []
        for node in model.nodes {
            let name = node.name.isEmpty ? node.outputs.first ?? node.opType : node.name
            if node.opType == "Constant" {
                guard node.outputs.count == 1, case .tensor(let value) = node.attributes["value"] else {
                    throw .unsupportedAttribute(node: name, attribute: "Constant value", value: "not a tensor")
                }
                constants[node.outputs[0]] = try tensor(value)
                continue
            }
            parsed.append((node, try GraphOp.parse(node, constants: constants, bytes: bytes)))
        }
        // The last step reading each value; graph outputs are never released.
        var lastReader: [String: Int] = [:]
        for (index, (node, _)) in parsed.enumerated() { for input in node.inputs where !input.isEmpty { lastReader[input] = index } }
        for output in model.outputNames { lastReader[output] = nil }
        var releases = [[String]](repeating: [], count: parsed.count)
        for (value, index) in lastReader where constants[value] == nil { releases[index].append(value) }
        self.steps = parsed.enumerated().map { index, pair in
            Step(name: pair.0.name.isEmpty ? pair.0.outputs.first ?? pair.0.opType : pair.0.name, op: pair.1,
                 inputs: pair.0.inputs, outputs: pair.0.outputs, releases: releases[index])
        }
        self.constants = constants
        let initializerNames = Set(model.initializers.keys)
        self.inputNames = model.inputNames.filter { !initializerNames.contains($0) }
        self.outputNames = model.outputNames
        self.metadata = model.metadata
    }

    /// Runs the graph on `inputs` (by graph input name) and returns the graph outputs by name.
    package func run(_ inputs: [String: GraphTensor], threads: Int) throws(ModelError) -> [String: GraphTensor] {
        var values = inputs
        for name in inputNames where values[name] == nil {
            throw .invalidGraphValue(node: name, detail: "graph input '\(name)' not given")
        }
        for step in steps {
            var arguments: [GraphTensor?] = []
            arguments.reserveCapacity(step.inputs.count)
            for input in step.inputs {
                if input.isEmpty { arguments.append(nil); continue }
                guard let value = values[input] ?? constants[input] else {
                    throw .invalidGraphValue(node: step.name, detail: "input '\(input)' is computed by no earlier node")
                }
                arguments.append(value)
            }
            // Kernels walk raw buffers: an empty value is refused before it reaches one.
            // (Resize's roi input is empty by design; only its data is checked.)
            var checked = arguments[...]
            if case .resizeNearest = step.op { checked = arguments.prefix(1) }
            if !step.op.acceptsEmpty, let empty = checked.firstIndex(where: { $0?.count == 0 }) {
                throw .invalidGraphValue(node: step.name, detail: "input \(empty) has no elements (shape \(arguments[empty]!.shape))")
            }
            for name in step.releases { values[name] = nil }
            let result = try execute(step, arguments, threads: threads)
            values[step.outputs[0]] = result
        }
        var outputs: [String: GraphTensor] = [:]
        for name in outputNames {
            guard let value = values[name] ?? constants[name] else {
                throw .invalidGraphValue(node: name, detail: "graph output '\(name)' is computed by no node")
            }
            outputs[name] = value
        }
        return outputs
    }

    private func execute(_ step: Step, _ arguments: [GraphTensor?], threads: Int) throws(ModelError) -> GraphTensor {
        let node = step.name
        func input(_ index: Int) throws(ModelError) -> GraphTensor {
            guard index < arguments.count, let value = arguments[index] else {
                throw .invalidGraphValue(node: node, detail: "input \(index) missing")
            }
            return value
        }
        func floats(_ index: Int) throws(ModelError) -> (GraphTensor, [Float]) {
            let value = try input(index)
            guard let values = value.floats else { throw .invalidGraphValue(node: node, detail: "input \(index) must be float") }
            return (value, values)
        }
        switch step.op {
        case .conv(let spec): return try GraphKernels.conv(try input(0), spec, node: node, threads: threads)
        case .convTranspose(let spec): return try GraphKernels.convTranspose(try input(0), spec, node: node, threads: threads)
        case .maxPool(let spec): return try GraphKernels.pool(try input(0), spec, max: true, countIncludePad: false, node: node)
        case .averagePool(let spec, let include): return try GraphKernels.pool(try input(0), spec, max: false, countIncludePad: include, node: node)
        case .globalAveragePool: return try GraphKernels.globalAveragePool(try input(0), node: node)
        case .batchNorm(let scale, let shift): return try GraphKernels.batchNorm(try input(0), scale: scale, shift: shift, node: node)
        case .binary(let op): return try GraphKernels.binary(op, try input(0), try input(1), node: node)
        case .clip(let low, let high):
            let (x, v) = try floats(0)
            return GraphTensor(shape: x.shape, floats: v.map { Swift.min(Swift.max($0, low), high) })
        case .relu:
            let (x, v) = try floats(0)
            return GraphTensor(shape: x.shape, floats: v.map { Swift.max($0, 0) })
        case .sigmoid:
            let (x, v) = try floats(0)
            return GraphTensor(shape: x.shape, floats: v.map { 1 / (1 + GraphKernels.exp(-$0)) })
        case .sqrt:
            let (x, v) = try floats(0)
            return GraphTensor(shape: x.shape, floats: v.map { $0.squareRoot() })
        case .hardSigmoid(let alpha, let beta):
            let (x, v) = try floats(0)
            return GraphTensor(shape: x.shape, floats: v.map { Swift.min(Swift.max(alpha * $0 + beta, 0), 1) })
        case .identity: return try input(0)
        case .resizeNearest: return try GraphKernels.resizeNearest(try input(0), scales: try input(2), node: node)
        case .concat(let axis): return try GraphKernels.concat(arguments.compactMap { $0 }, axis: axis, node: node)
        case .reshape: return try GraphKernels.reshape(try input(0), to: try input(1), node: node)
        case .shape: return GraphTensor(shape: [try input(0).shape.count], integers: try input(0).shape.map { Int64($0) })
        case .slice: return try GraphKernels.slice(arguments, node: node)
        case .matMul: return try GraphKernels.matMul(try input(0), try input(1), node: node, threads: threads)
        case .cast(let toInt, let int32): return GraphKernels.cast(try input(0), toInt: toInt, int32: int32)
        case .squeeze(let axes):
            var resolved = axes
            if resolved == nil, arguments.count > 1 { resolved = try input(1).integers?.map { Int(clamping: $0) } }
            return try GraphKernels.squeeze(try input(0), axes: resolved, node: node)
        case .transpose(let perm): return try GraphKernels.transpose(try input(0), perm: perm, node: node)
        case .reduceMean(let axes, let keep): return try GraphKernels.reduceMean(try input(0), axes: axes, keepDims: keep, node: node)
        case .softmax(let axis): return try GraphKernels.softmax(try input(0), axis: axis, node: node)
        }
    }
}
