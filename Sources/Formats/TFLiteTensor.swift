/// TFLite `TensorType` values this reader knows (tensorflow/lite/schema/schema.fbs); STRING and the
/// complex and 4-bit types have no fixed element size and are refused.
package enum TFLiteTensorType: Int8, Sendable, Equatable, CustomStringConvertible {
    case float32 = 0, float16 = 1, int32 = 2, uint8 = 3, int64 = 4, bool = 6, int16 = 7, int8 = 9, float64 = 10

    package var byteSize: Int {
        switch self {
        case .uint8, .int8, .bool: 1
        case .float16, .int16: 2
        case .float32, .int32: 4
        case .int64, .float64: 8
        }
    }

    package var description: String {
        switch self {
        case .float32: "FLOAT32"
        case .float16: "FLOAT16"
        case .int32: "INT32"
        case .uint8: "UINT8"
        case .int64: "INT64"
        case .bool: "BOOL"
        case .int16: "INT16"
        case .int8: "INT8"
        case .float64: "FLOAT64"
        }
    }
}

/// One tensor of a subgraph: its shape and type, and where its constant data is when it has any
/// (an absolute byte range in the file; nil for activations, whose buffer is empty).
package struct TFLiteTensor: Sendable, Equatable {
    package let name: String
    package let shape: [Int]
    package let type: TFLiteTensorType
    /// Index into the model's buffers (0 is the empty buffer by convention).
    package let buffer: Int
    /// The constant's bytes in the file, exactly `elementCount * type.byteSize` of them.
    package let data: Range<Int>?
    /// True when the tensor carries quantization scales (its values are not plain numbers).
    package let isQuantized: Bool

    package var elementCount: Int { shape.reduce(1, *) }

    /// Tensor table fields: 0 shape [int] · 1 type byte · 2 buffer uint · 3 name string ·
    /// 4 quantization QuantizationParameters (2 scale [float] read, the rest skipped).
    init(table: FlatBufferTable, buffers: [Range<Int>]) throws(FormatError) {
        name = try table.string(3, "name")
        let rawType = try table.scalar(1, "type", default: Int8(0))
        guard let type = TFLiteTensorType(rawValue: rawType) else {
            throw .unsupportedDType(name: name, dtype: "TFLite TensorType \(rawType)")
        }
        self.type = type
        let dims = try table.int32s(0, "shape")
        var count = 1
        for dim in dims {
            let (product, overflow) = count.multipliedReportingOverflow(by: Int(dim))
            guard dim >= 0, !overflow, product <= Int(Int32.max) else {
                throw .invalidDimensions(name: name, dims: dims.map { UInt64(bitPattern: Int64($0)) })
            }
            count = product
        }
        shape = dims.map(Int.init)
        let index = Int(try table.scalar(2, "buffer", default: UInt32(0)))
        guard index < buffers.count else {
            throw .indexOutOfRange(field: "\(table.name) '\(name)'.buffer", index: index, count: buffers.count)
        }
        buffer = index
        let range = buffers[index]
        if range.isEmpty {
            data = nil
        } else {
            guard range.count == count * type.byteSize else {
                throw .invalidHeader(format: "TFLite", detail: "tensor '\(name)' \(type)\(shape) needs \(count * type.byteSize) bytes, its buffer \(index) holds \(range.count)")
            }
            data = range
        }
        if let quantization = try table.table(4, "quantization", name: "\(table.name).quantization") {
            isQuantized = try quantization.vector(2, "scale", elementSize: 4).count > 0
        } else {
            isQuantized = false
        }
    }
}
