/// ONNX `TensorProto.DataType` values this reader can hand out as numbers.
package enum ONNXDataType: Int, Sendable, Equatable {
    case float = 1, int32 = 6, int64 = 7, float16 = 10, double = 11

    var byteSize: Int {
        switch self {
        case .float, .int32: 4
        case .int64, .double: 8
        case .float16: 2
        }
    }
}

/// One initializer: its shape, type and where its values are. Raw data stays in the mapped file
/// (`rawData` is an absolute byte range); the typed repeated fields are small and copied.
package struct ONNXTensor: Sendable, Equatable {
    package enum Storage: Sendable, Equatable {
        case raw(Range<Int>)
        case floats([Float])
        case int64s([Int64])
    }

    package let name: String
    package let dims: [Int]
    package let dataType: ONNXDataType
    package let storage: Storage

    package var elementCount: Int { dims.reduce(1, *) }

    private var isRaw: Bool {
        if case .raw = storage { return true }
        return false
    }

    init(bytes: UnsafeRawBufferPointer, range: Range<Int>) throws(FormatError) {
        var reader = ProtobufReader(bytes: bytes, offset: range.lowerBound, end: range.upperBound)
        var dims: [Int64] = [], floatData: [Float] = [], int64Data: [Int64] = [], int32Data: [Int64] = []
        var name = "", rawType: UInt64 = 0, raw: Range<Int>?, external = false
        while !reader.isAtEnd {
            let (field, wire) = try reader.readKey("TensorProto '\(name)'")
            switch field {
            case 1: try reader.readInts(wire, into: &dims, "TensorProto '\(name)'.dims")
            case 2:
                try reader.expect(wire, .varint, "TensorProto '\(name)'.data_type")
                rawType = try reader.readVarint("TensorProto '\(name)'.data_type")
            case 4: try reader.readFloats(wire, into: &floatData, "TensorProto '\(name)'.float_data")
            case 5: try reader.readInts(wire, into: &int32Data, "TensorProto '\(name)'.int32_data")
            case 7: try reader.readInts(wire, into: &int64Data, "TensorProto '\(name)'.int64_data")
            case 8:
                try reader.expect(wire, .lengthDelimited, "TensorProto.name")
                name = try reader.readString("TensorProto.name")
            case 9:
                try reader.expect(wire, .lengthDelimited, "TensorProto '\(name)'.raw_data")
                raw = try reader.readLength("TensorProto '\(name)'.raw_data")
            case 14:
                try reader.expect(wire, .varint, "TensorProto '\(name)'.data_location")
                external = try reader.readVarint("TensorProto '\(name)'.data_location") == 1
            default: try reader.skip(wire, "TensorProto '\(name)' field \(field)")
            }
        }
        guard !external else { throw .invalidHeader(format: "ONNX", detail: "tensor '\(name)' keeps its data in an external file") }
        guard let type = ONNXDataType(rawValue: Int(clamping: rawType)) else {
            throw .unsupportedDType(name: name, dtype: "ONNX data_type \(rawType)")
        }
        // Each dimension and the total byte size must fit an Int; the file bounds the real size.
        var count = 1
        for dim in dims {
            let (product, overflow) = count.multipliedReportingOverflow(by: Int(clamping: dim))
            guard dim >= 0, !overflow, product <= bytes.count else {
                throw .invalidDimensions(name: name, dims: dims.map { UInt64(bitPattern: $0) })
            }
            count = product
        }
        let stored: Storage
        if let raw {
            guard raw.count == count * type.byteSize else {
                throw .tensorOutOfBounds(name: name, offset: raw.lowerBound, size: count * type.byteSize, fileSize: raw.count)
            }
            stored = .raw(raw)
        } else if type == .float, floatData.count == count {
            stored = .floats(floatData)
        } else if type == .int64, int64Data.count == count {
            stored = .int64s(int64Data)
        } else if type == .int32, int32Data.count == count {
            // int32_data holds each value as a varint of its sign-extended 64-bit pattern.
            stored = .int64s(int32Data.map { Int64(Int32(truncatingIfNeeded: $0)) })
        } else {
            throw .invalidHeader(format: "ONNX", detail: "tensor '\(name)' has no data for its \(count) elements")
        }
        self.name = name
        self.dims = dims.map { Int($0) }
        self.dataType = type
        self.storage = stored
    }

    /// The values as f32; only FLOAT tensors convert (a weight of another type is the caller's error to report).
    package func floats(in bytes: UnsafeRawBufferPointer) throws(FormatError) -> [Float] {
        guard dataType == .float else { throw .unsupportedDType(name: name, dtype: "\(dataType) (f32 expected)") }
        switch storage {
        case .floats(let values): return values
        case .int64s: throw .unsupportedDType(name: name, dtype: "int64 (f32 expected)")
        case .raw(let range):
            return [Float](unsafeUninitializedCapacity: elementCount) { buffer, initialized in
                UnsafeMutableRawBufferPointer(buffer).copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[range]))
                initialized = elementCount
            }
        }
    }

    /// The values of an INT64 or INT32 tensor, widened to Int64.
    package func integers(in bytes: UnsafeRawBufferPointer) throws(FormatError) -> [Int64] {
        guard dataType == .int32, case .raw(let range) = storage else { return try int64s(in: bytes) }
        return (0..<elementCount).map { Int64(Int32(littleEndian: bytes.loadUnaligned(fromByteOffset: range.lowerBound + 4 * $0, as: Int32.self))) }
    }

    /// The values as Int64 (INT64 tensors only).
    package func int64s(in bytes: UnsafeRawBufferPointer) throws(FormatError) -> [Int64] {
        guard dataType == .int64 || (dataType == .int32 && !isRaw) else {
            throw .unsupportedDType(name: name, dtype: "\(dataType) (int64 expected)")
        }
        switch storage {
        case .int64s(let values): return values
        case .floats: throw .unsupportedDType(name: name, dtype: "float (int64 expected)")
        case .raw(let range): return (0..<elementCount).map { Int64(littleEndian: bytes.loadUnaligned(fromByteOffset: range.lowerBound + 8 * $0, as: Int64.self)) }
        }
    }
}
