/// Small TFLite model files for tests and fuzz seeds: one subgraph of float tensors, with the
/// schema's field numbering (tensorflow/lite/schema/schema.fbs) written by `FlatBufferWriter`.
package struct TFLiteWriter {
    package typealias Value = FlatBufferWriter.Value

    package struct Tensor {
        package var name: String
        package var shape: [Int32]
        /// TensorType: 0 FLOAT32, 1 FLOAT16, 2 INT32.
        package var type: Int8
        package var buffer: UInt32

        package init(name: String, shape: [Int32], type: Int8 = 0, buffer: UInt32 = 0) {
            self.name = name
            self.shape = shape
            self.type = type
            self.buffer = buffer
        }
    }

    package struct Operator {
        package var opcodeIndex: UInt32
        package var inputs: [Int32]
        package var outputs: [Int32]
        /// BuiltinOptions union type and its table (nil: none).
        package var optionsType: UInt8
        package var options: [Value?]?

        package init(opcodeIndex: UInt32, inputs: [Int32], outputs: [Int32], optionsType: UInt8 = 0, options: [Value?]? = nil) {
            self.opcodeIndex = opcodeIndex
            self.inputs = inputs
            self.outputs = outputs
            self.optionsType = optionsType
            self.options = options
        }
    }

    package var version: UInt32 = 3
    /// Builtin operator codes, indexed by `Operator.opcodeIndex`.
    package var opcodes: [Int32] = []
    /// Buffer contents; buffer 0 is the empty buffer by convention.
    package var buffers: [[UInt8]] = [[]]
    package var tensors: [Tensor] = []
    package var inputs: [Int32] = []
    package var outputs: [Int32] = []
    package var operators: [Operator] = []
    package var identifier = "TFL3"

    package init() {}

    /// Appends a buffer holding `values` as little-endian f32 and returns its index.
    package mutating func addBuffer(floats values: [Float]) -> UInt32 {
        buffers.append(values.flatMap { withUnsafeBytes(of: $0.bitPattern.littleEndian, Array.init) })
        return UInt32(buffers.count - 1)
    }

    /// Appends a buffer holding `values` as little-endian f16 and returns its index.
    package mutating func addBuffer(halves values: [Float]) -> UInt32 {
        buffers.append(values.flatMap { withUnsafeBytes(of: Float16($0).bitPattern.littleEndian, Array.init) })
        return UInt32(buffers.count - 1)
    }

    /// Appends a buffer holding `values` as little-endian i32 and returns its index.
    package mutating func addBuffer(int32s values: [Int32]) -> UInt32 {
        buffers.append(values.flatMap { withUnsafeBytes(of: $0.littleEndian, Array.init) })
        return UInt32(buffers.count - 1)
    }

    /// Appends a tensor and returns its index.
    package mutating func addTensor(_ tensor: Tensor) -> Int32 {
        tensors.append(tensor)
        return Int32(tensors.count - 1)
    }

    /// Appends an operator code and returns its index.
    package mutating func addOpcode(_ builtin: Int32) -> UInt32 {
        opcodes.append(builtin)
        return UInt32(opcodes.count - 1)
    }

    /// The model as a FlatBuffer.
    package func bytes() -> [UInt8] {
        let codes: [Value] = opcodes.map { code in
            .table([.int8(Int8(clamping: code)), nil, .int32(1), .int32(code)])
        }
        let tensorTables: [Value] = tensors.map { t in
            .table([.int32s(t.shape), .int8(t.type), .uint32(t.buffer), .string(t.name)])
        }
        let operatorTables: [Value] = operators.map { op in
            .table([.uint32(op.opcodeIndex), .int32s(op.inputs), .int32s(op.outputs),
                    op.options == nil ? nil : .uint8(op.optionsType), op.options.map { .table($0) }])
        }
        let subgraph: Value = .table([.tables(tensorTables), .int32s(inputs), .int32s(outputs), .tables(operatorTables), .string("main")])
        let bufferTables: [Value] = buffers.map { data in .table([data.isEmpty ? nil : .bytes(data)]) }
        let model: Value = .table([.uint32(version), .tables(codes), .tables([subgraph]), .string("test model"), .tables(bufferTables)])
        return FlatBufferWriter.buffer(root: model, identifier: identifier)
    }
}
