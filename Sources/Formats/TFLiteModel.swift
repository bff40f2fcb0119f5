import Tensor

/// A TFLite model file (FlatBuffers, schema v3, file identifier `TFL3`): its subgraphs, tensors,
/// operators with their options, and where each constant's bytes are. A reader, not a runtime:
/// nothing here evaluates the graph. Constant data stays in the mapped file.
///
/// Tables and fields read (tensorflow/lite/schema/schema.fbs; field numbers are schema order,
/// anything else is skipped):
///   Model         0 version uint · 1 operator_codes [OperatorCode] · 2 subgraphs [SubGraph] ·
///                 3 description string · 4 buffers [Buffer] · 6 metadata [Metadata]
///   OperatorCode  0 deprecated_builtin_code byte · 1 custom_code string · 3 builtin_code int
///                 (the code is the larger of the two builtin fields, as TFLite reads it)
///   SubGraph      0 tensors [Tensor] · 1 inputs [int] · 2 outputs [int] · 3 operators [Operator] · 4 name
///   Buffer        0 data [ubyte] · 1 offset ulong · 2 size ulong (data stored after the flatbuffer,
///                 absolute offset in the file, for models over 2 GB)
///   Metadata      0 name string · 1 buffer uint
/// Tensors and operators are described in `TFLiteTensor` and `TFLiteOperator`.
package final class TFLiteModel: Sendable {
    package let region: MappedRegion
    /// The schema version the file declares (3 for every current converter).
    package let version: UInt32
    package let description: String
    package let opcodes: [TFLiteOpcode]
    package let subgraphs: [TFLiteSubgraph]
    /// Metadata entries: name and the byte count of their buffer.
    package let metadata: [(name: String, bytes: Int)]

    package convenience init(path: String) throws(FormatError) {
        let region: MappedRegion
        do { region = try MappedRegion(path: path) } catch { throw .io(error) }
        try self.init(region: region)
    }

    package init(region: MappedRegion) throws(FormatError) {
        self.region = region
        let bytes = region.bytes
        guard bytes.count >= 8 else { throw .truncated(field: "TFLite header", offset: 0, needed: 8, fileSize: bytes.count) }
        let identifier = Array(UnsafeRawBufferPointer(rebasing: bytes[4..<8]))
        guard identifier == Array("TFL3".utf8) else { throw .invalidHeader(format: "TFLite", detail: "file identifier \(identifier) at offset 4 is not TFL3") }
        let model = try FlatBufferTable.root(of: bytes, name: "Model")
        version = try model.scalar(0, "version", default: UInt32(0))
        guard version == 3 else {
            throw .invalidHeader(format: "TFLite", detail: "schema version \(version) (3 is read)")
        }
        description = try model.string(3, "description")

        var buffers: [Range<Int>] = []
        for table in try model.tables(4, "buffers", elementName: "Buffer") {
            var range = try table.byteRange(0, "data")
            let offset = try table.scalar(1, "offset", default: UInt64(0))
            let size = try table.scalar(2, "size", default: UInt64(0))
            // offset 1 is the converter's placeholder for "no data"; real out-of-line data starts past the header.
            if offset > 1 {
                guard range.isEmpty, offset <= UInt64(bytes.count), size <= UInt64(bytes.count) - offset else {
                    throw .tensorOutOfBounds(name: table.name, offset: Int(clamping: offset), size: Int(clamping: size), fileSize: bytes.count)
                }
                range = Int(offset)..<Int(offset + size)
            }
            buffers.append(range)
        }

        var opcodes: [TFLiteOpcode] = []
        for table in try model.tables(1, "operator_codes", elementName: "OperatorCode") {
            let deprecated = Int32(try table.scalar(0, "deprecated_builtin_code", default: Int8(0)))
            let code = max(deprecated, try table.scalar(3, "builtin_code", default: Int32(0)))
            if let builtin = TFLiteBuiltin(rawValue: code) {
                opcodes.append(builtin == .custom ? .custom(try table.string(1, "custom_code")) : .builtin(builtin))
            } else {
                opcodes.append(.unknown(code))
            }
        }
        self.opcodes = opcodes

        var subgraphs: [TFLiteSubgraph] = []
        for (i, table) in try model.tables(2, "subgraphs", elementName: "SubGraph").enumerated() {
            subgraphs.append(try TFLiteSubgraph(table: table, index: i, buffers: buffers, opcodes: opcodes))
        }
        guard !subgraphs.isEmpty else { throw .invalidHeader(format: "TFLite", detail: "no subgraph") }
        self.subgraphs = subgraphs

        var metadata: [(name: String, bytes: Int)] = []
        for table in try model.tables(6, "metadata", elementName: "Metadata") {
            let index = Int(try table.scalar(1, "buffer", default: UInt32(0)))
            guard index < buffers.count else { throw .indexOutOfRange(field: "\(table.name).buffer", index: index, count: buffers.count) }
            metadata.append((try table.string(0, "name"), buffers[index].count))
        }
        self.metadata = metadata
    }

    /// A constant tensor's values widened to f32 (FLOAT32 and FLOAT16 constants).
    package func floats(_ tensor: TFLiteTensor) throws(FormatError) -> [Float] {
        guard let range = tensor.data else { throw .missingTensor(name: "\(tensor.name) (no constant data)") }
        let bytes = region.bytes
        switch tensor.type {
        case .float32:
            return [Float](unsafeUninitializedCapacity: tensor.elementCount) { buffer, initialized in
                UnsafeMutableRawBufferPointer(buffer).copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[range]))
                initialized = tensor.elementCount
            }
        case .float16:
            return (0..<tensor.elementCount).map {
                Float(Float16(bitPattern: UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: range.lowerBound + 2 * $0, as: UInt16.self))))
            }
        default: throw .unsupportedDType(name: tensor.name, dtype: "\(tensor.type) (FLOAT32 or FLOAT16 expected)")
        }
    }

    /// A constant INT32 tensor's values.
    package func int32s(_ tensor: TFLiteTensor) throws(FormatError) -> [Int32] {
        guard let range = tensor.data else { throw .missingTensor(name: "\(tensor.name) (no constant data)") }
        guard tensor.type == .int32 else { throw .unsupportedDType(name: tensor.name, dtype: "\(tensor.type) (INT32 expected)") }
        let bytes = region.bytes
        return (0..<tensor.elementCount).map { Int32(littleEndian: bytes.loadUnaligned(fromByteOffset: range.lowerBound + 4 * $0, as: Int32.self)) }
    }
}

/// One subgraph: its tensors, the operators in execution order and the graph's inputs and outputs
/// (tensor indices).
package struct TFLiteSubgraph: Sendable, Equatable {
    package let name: String
    package let tensors: [TFLiteTensor]
    package let inputs: [Int]
    package let outputs: [Int]
    package let operators: [TFLiteOperator]

    init(table: FlatBufferTable, index: Int, buffers: [Range<Int>], opcodes: [TFLiteOpcode]) throws(FormatError) {
        name = try table.string(4, "name")
        var tensors: [TFLiteTensor] = []
        for t in try table.tables(0, "tensors", elementName: "SubGraph[\(index)].Tensor") {
            tensors.append(try TFLiteTensor(table: t, buffers: buffers))
        }
        self.tensors = tensors
        func indices(_ slot: Int, _ field: String) throws(FormatError) -> [Int] {
            let values = try table.int32s(slot, field).map(Int.init)
            for (i, v) in values.enumerated() where !(v >= 0 && v < tensors.count) {
                throw .indexOutOfRange(field: "SubGraph[\(index)].\(field)[\(i)]", index: v, count: tensors.count)
            }
            return values
        }
        inputs = try indices(1, "inputs")
        outputs = try indices(2, "outputs")
        var operators: [TFLiteOperator] = []
        for op in try table.tables(3, "operators", elementName: "SubGraph[\(index)].Operator") {
            operators.append(try TFLiteOperator(table: op, opcodes: opcodes, tensorCount: tensors.count))
        }
        self.operators = operators
    }

    /// The index of the tensor called `name`.
    package func tensorIndex(named name: String) -> Int? { tensors.firstIndex { $0.name == name } }
}
