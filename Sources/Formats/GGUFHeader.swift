import Tensor

// GGUF layout read here (little-endian; versions 2 and 3 share it, v1 had u32 counts):
//   u32  magic "GGUF" (bytes 47 47 55 46)
//   u32  version
//   u64  tensor count
//   u64  metadata key/value count
//   kv × count:           string key, u32 value type, value
//   tensor info × count:  string name, u32 n_dims (≤ 4), u64 dims[n_dims], u32 ggml type,
//                         u64 data offset (relative to the data section, a multiple of the alignment)
//   zero padding up to the next multiple of `general.alignment` (u32, default 32)
//   data section
// string = u64 byte length + UTF-8 bytes, no terminator
// value  = fixed-width scalar (types 0–7, 10–12) | string (8) | array (9): u32 element type,
//          u64 count, elements (arrays may nest)
// Reference: ggml `docs/gguf.md` and `ggml/include/gguf.h` (facts only).

/// Everything in a GGUF file before the tensor bytes, validated against the file's size.
///
/// Parsing reads only inside `bytes`, bounds every count by the bytes left, and checks every
/// tensor's extent, so the result can be used to point into the file without further checks.
package struct GGUFHeader: Sendable {
    package static let defaultAlignment = 32
    /// Arrays of arrays deeper than this are refused; real files never nest at all.
    package static let maxArrayNesting = 4

    package let version: UInt32
    package let alignment: Int
    package let metadata: [String: GGUFValue]
    /// Metadata keys in file order.
    package let metadataKeys: [String]
    package let tensorInfos: [GGUFTensorInfo]
    /// Tensor name → index in `tensorInfos`.
    package let tensorIndex: [String: Int]
    /// Absolute offset of the data section.
    package let dataOffset: Int

    /// Parses and validates a whole GGUF file image.
    package init(parsing bytes: UnsafeRawBufferPointer) throws(FormatError) {
        var cursor = ByteCursor(bytes: bytes)
        let magic = try cursor.read(UInt32.self, "magic")
        guard magic == 0x4655_4747 else {   // "GGUF" read as a little-endian u32
            throw .badMagic(found: Array(bytes[0..<4]))
        }
        version = try cursor.read(UInt32.self, "version")
        guard version == 2 || version == 3 else { throw .unsupportedVersion(version) }
        // A tensor info takes at least 24 bytes (empty name, no dims), a kv at least 13.
        let tensorCount = try cursor.readCount(minItemSize: 24, "tensor count")
        let kvCount = try cursor.readCount(minItemSize: 13, "metadata count")

        var metadata: [String: GGUFValue] = [:]
        metadata.reserveCapacity(ByteCursor.reservation(kvCount))
        var keys: [String] = []
        keys.reserveCapacity(ByteCursor.reservation(kvCount))
        for index in 0..<kvCount {
            let key = try cursor.readString("metadata[\(index)] key")
            let value = try cursor.readValue(key: key)
            guard metadata.updateValue(value, forKey: key) == nil else { throw .duplicateKey(key: key) }
            keys.append(key)
        }
        self.metadata = metadata
        metadataKeys = keys
        alignment = try Self.alignment(in: metadata)

        var pending: [(name: String, type: GGMLType, shape: [Int], relative: UInt64, byteCount: Int)] = []
        pending.reserveCapacity(ByteCursor.reservation(tensorCount))
        var index: [String: Int] = [:]
        index.reserveCapacity(ByteCursor.reservation(tensorCount))
        for i in 0..<tensorCount {
            let name = try cursor.readString("tensor[\(i)] name")
            let dimsOffset = cursor.offset
            let dimCount = try cursor.read(UInt32.self, "tensor '\(name)' n_dims")
            guard dimCount <= 4 else { throw .tooManyDimensions(name: name, count: dimCount, offset: dimsOffset) }
            var dims: [UInt64] = []
            dims.reserveCapacity(Int(dimCount))
            for d in 0..<Int(dimCount) { dims.append(try cursor.read(UInt64.self, "tensor '\(name)' dims[\(d)]")) }
            let rawType = try cursor.read(UInt32.self, "tensor '\(name)' type")
            let relative = try cursor.read(UInt64.self, "tensor '\(name)' offset")
            guard let type = GGMLType(rawValue: rawType) else {
                throw .unsupportedTensorType(name: name, rawType: rawType)
            }
            let (shape, byteCount) = try Self.measure(name: name, dims: dims, type: type)
            guard index.updateValue(i, forKey: name) == nil else { throw .duplicateTensor(name: name) }
            pending.append((name, type, shape, relative, byteCount))
        }

        // The data section starts at the first aligned offset after the infos; overflow is impossible
        // because the cursor is inside the file and alignment ≤ 2^30.
        dataOffset = (cursor.offset + alignment - 1) & ~(alignment - 1)
        var infos: [GGUFTensorInfo] = []
        infos.reserveCapacity(pending.count)
        for t in pending {
            guard t.relative % UInt64(alignment) == 0 else {
                throw .misalignedTensor(name: t.name, offset: t.relative, alignment: alignment)
            }
            let (start, overflow) = Int(clamping: t.relative).addingReportingOverflow(dataOffset)
            guard !overflow, t.relative <= UInt64(Int.max), start <= bytes.count, t.byteCount <= bytes.count - start else {
                throw .tensorOutOfBounds(name: t.name, offset: overflow ? Int.max : start, size: t.byteCount, fileSize: bytes.count)
            }
            infos.append(GGUFTensorInfo(name: t.name, type: t.type, shape: t.shape, offset: start, byteCount: t.byteCount))
        }
        tensorInfos = infos
        tensorIndex = index
    }

    /// `general.alignment`, which must be a non-zero power of two; any integer width is accepted.
    private static func alignment(in metadata: [String: GGUFValue]) throws(FormatError) -> Int {
        let key = "general.alignment"
        guard let value = metadata[key] else { return defaultAlignment }
        let raw: UInt64
        switch value {
        case .uint8(let v): raw = UInt64(v)
        case .uint16(let v): raw = UInt64(v)
        case .uint32(let v): raw = UInt64(v)
        case .uint64(let v): raw = v
        case .int8(let v): raw = UInt64(bitPattern: Int64(v))
        case .int16(let v): raw = UInt64(bitPattern: Int64(v))
        case .int32(let v): raw = UInt64(bitPattern: Int64(v))
        case .int64(let v): raw = UInt64(bitPattern: v)
        default: throw .wrongMetadataType(key: key, expected: "u32", found: value.typeName)
        }
        guard raw != 0, raw & (raw - 1) == 0, raw <= 1 << 30 else { throw .invalidAlignment(value: raw) }
        return Int(raw)
    }

    /// Shape in `Int`s and byte size, with every product checked for overflow.
    private static func measure(name: String, dims: [UInt64], type: GGMLType) throws(FormatError) -> ([Int], Int) {
        let invalid = FormatError.invalidDimensions(name: name, dims: dims)
        var shape: [Int] = []
        shape.reserveCapacity(dims.count)
        var elements = 1
        for dim in dims {
            guard dim <= UInt64(Int.max) else { throw invalid }
            let (product, overflow) = elements.multipliedReportingOverflow(by: Int(dim))
            guard !overflow else { throw invalid }
            elements = product
            shape.append(Int(dim))
        }
        let rowLength = shape.first ?? 1
        guard rowLength % type.blockSize == 0 else {
            throw .partialBlock(name: name, rowLength: rowLength, blockSize: type.blockSize)
        }
        var rows = 1
        for dim in shape.dropFirst() {
            let (product, overflow) = rows.multipliedReportingOverflow(by: dim)
            guard !overflow else { throw invalid }
            rows = product
        }
        let (rowBytes, rowOverflow) = (rowLength / type.blockSize).multipliedReportingOverflow(by: type.bytesPerBlock)
        let (byteCount, overflow) = rowBytes.multipliedReportingOverflow(by: rows)
        guard !rowOverflow, !overflow else { throw invalid }
        return (shape, byteCount)
    }
}
