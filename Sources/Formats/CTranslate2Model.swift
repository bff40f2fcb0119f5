import Tensor

/// A CTranslate2 `model.bin` (the format faster-whisper's model folders use), memory-mapped;
/// tensors are zero-copy views into the mapping.
///
/// Layout (CTranslate2 `python/ctranslate2/specs/model_spec.py` serialization, binary
/// versions 4–6; little-endian):
/// ```
/// u32      binary version
/// string   spec name (e.g. "WhisperSpec")          string = u16 length n, then n bytes whose
/// u32      spec revision                                    last byte is a NUL terminator
/// u32      variable count, then per variable:
///   string   name ("encoder/conv1/weight")
///   u8       rank, then rank × u32 dimensions, outermost first (row-major)
///   u8       dtype (0 f32, 1 i8, 2 i16, 3 i32, 4 f16, 5 bf16)
///   u32      byte count (= element count × element size)
///   bytes    data, unaligned, row-major
/// u32      alias count, then per alias: string alias, string target variable
/// ```
/// Shapes are reversed into ggml order for `TensorView`: a PyTorch linear weight stored as
/// [out, in] becomes shape [in, out], which is what `MatMul.linear` takes.
package struct CTranslate2Model: Sendable {
    package let region: MappedRegion
    package let binaryVersion: UInt32
    package let specName: String
    package let specRevision: UInt32
    /// Variables by name, aliases included (pointing at their target's bytes).
    package let variables: [String: CTranslate2Variable]
    /// Alias name → target name.
    package let aliases: [String: String]

    package static let supportedVersions: ClosedRange<UInt32> = 4...6

    package static func open(path: String) throws(FormatError) -> CTranslate2Model {
        let region: MappedRegion
        do { region = try MappedRegion(path: path) } catch { throw .io(error) }
        return try CTranslate2Model(region: region)
    }

    package init(region: MappedRegion) throws(FormatError) {
        self.region = region
        var cursor = ByteCursor(bytes: region.bytes)
        binaryVersion = try cursor.read(UInt32.self, "binary version")
        guard Self.supportedVersions.contains(binaryVersion) else {
            throw .invalidHeader(format: "CTranslate2", detail: "binary version \(binaryVersion) (4 to 6 are read)")
        }
        specName = try cursor.readShortString("spec name")
        specRevision = try cursor.read(UInt32.self, "spec revision")
        let count = try cursor.read(UInt32.self, "variable count")
        // Each variable takes at least 2 + 1 + 1 + 4 bytes, which bounds the count by the file.
        guard Int(count) <= cursor.remaining / 8 else {
            throw .absurdCount(field: "variable count", count: UInt64(count), offset: cursor.offset - 4)
        }
        var variables: [String: CTranslate2Variable] = [:]
        variables.reserveCapacity(Int(count))
        for index in 0..<Int(count) {
            let variable = try CTranslate2Variable(reading: &cursor, index: index)
            guard variables[variable.name] == nil else { throw .duplicateTensor(name: variable.name) }
            variables[variable.name] = variable
        }
        var aliases: [String: String] = [:]
        if cursor.remaining > 0 {
            let aliasCount = try cursor.read(UInt32.self, "alias count")
            guard Int(aliasCount) <= cursor.remaining / 4 else {
                throw .absurdCount(field: "alias count", count: UInt64(aliasCount), offset: cursor.offset - 4)
            }
            for i in 0..<Int(aliasCount) {
                let alias = try cursor.readShortString("alias \(i) name")
                let target = try cursor.readShortString("alias '\(alias)' target")
                guard let resolved = variables[target] else { throw .missingTensor(name: target) }
                guard variables[alias] == nil else { throw .duplicateTensor(name: alias) }
                variables[alias] = resolved.renamed(alias)
                aliases[alias] = target
            }
        }
        self.variables = variables
        self.aliases = aliases
    }

    package func hasVariable(_ name: String) -> Bool { variables[name] != nil }

    /// A zero-copy view of variable `name` (shape in ggml order).
    package func tensor(_ name: String) throws(FormatError) -> TensorView {
        guard let v = variables[name], let base = region.base else { throw .missingTensor(name: name) }
        return TensorView(name: name, type: v.dataType.tensorType, shape: v.shape.isEmpty ? [1] : v.shape.reversed(),
                          data: base + v.offset, byteCount: v.byteCount, owner: region)
    }

    /// The value of an integer or boolean scalar variable (`encoder/num_heads`), nil when
    /// absent or not an integer scalar.
    package func integerScalar(_ name: String) -> Int? {
        guard let v = variables[name], v.shape.isEmpty, let base = region.base else { return nil }
        let p = base + v.offset
        switch v.dataType {
        case .int8: return Int(p.loadUnaligned(as: Int8.self))
        case .int16: return Int(Int16(littleEndian: p.loadUnaligned(as: Int16.self)))
        case .int32: return Int(Int32(littleEndian: p.loadUnaligned(as: Int32.self)))
        default: return nil
        }
    }
}

/// CTranslate2's `DataType` ids.
package enum CTranslate2DataType: UInt8, Sendable {
    case float32 = 0, int8 = 1, int16 = 2, int32 = 3, float16 = 4, bfloat16 = 5

    package var size: Int {
        switch self {
        case .float32, .int32: 4
        case .int16, .float16, .bfloat16: 2
        case .int8: 1
        }
    }

    package var tensorType: GGMLType {
        switch self {
        case .float32: .f32
        case .int8: .i8
        case .int16: .i16
        case .int32: .i32
        case .float16: .f16
        case .bfloat16: .bf16
        }
    }
}

/// Where one variable lives, checked against the file.
package struct CTranslate2Variable: Sendable, Equatable {
    package let name: String
    package let dataType: CTranslate2DataType
    /// Row-major (outermost first), as stored; empty for a scalar.
    package let shape: [Int]
    /// Absolute offset of the data in the file.
    package let offset: Int
    package let byteCount: Int

    init(reading cursor: inout ByteCursor, index: Int) throws(FormatError) {
        let name = try cursor.readShortString("variable \(index) name")
        let rankAt = cursor.offset
        let rank = Int(try cursor.read(UInt8.self, "variable '\(name)' rank"))
        guard rank <= 8 else { throw .tooManyDimensions(name: name, count: UInt32(rank), offset: rankAt) }
        var dims: [UInt64] = []
        for d in 0..<rank { dims.append(UInt64(try cursor.read(UInt32.self, "variable '\(name)' dimension \(d)"))) }
        let rawType = try cursor.read(UInt8.self, "variable '\(name)' dtype")
        guard let type = CTranslate2DataType(rawValue: rawType) else {
            throw .unsupportedTensorType(name: name, rawType: UInt32(rawType))
        }
        let byteCount = Int(try cursor.read(UInt32.self, "variable '\(name)' byte count"))
        var elements = 1
        for d in dims {
            let (p, overflow) = elements.multipliedReportingOverflow(by: Int(d))
            guard !overflow else { throw .invalidDimensions(name: name, dims: dims) }
            elements = p
        }
        let (expected, overflow) = elements.multipliedReportingOverflow(by: type.size)
        guard !overflow, expected == byteCount else {
            throw .invalidHeader(format: "CTranslate2", detail: "variable '\(name)': \(byteCount) bytes for shape \(dims) of \(type)")
        }
        guard byteCount <= cursor.remaining else {
            throw .tensorOutOfBounds(name: name, offset: cursor.offset, size: byteCount, fileSize: cursor.bytes.count)
        }
        self.name = name
        self.dataType = type
        self.shape = dims.map { Int($0) }
        self.offset = cursor.offset
        self.byteCount = byteCount
        cursor.offset += byteCount
    }

    private init(name: String, dataType: CTranslate2DataType, shape: [Int], offset: Int, byteCount: Int) {
        self.name = name
        self.dataType = dataType
        self.shape = shape
        self.offset = offset
        self.byteCount = byteCount
    }

    func renamed(_ alias: String) -> CTranslate2Variable {
        CTranslate2Variable(name: alias, dataType: dataType, shape: shape, offset: offset, byteCount: byteCount)
    }
}

extension ByteCursor {
    /// A CTranslate2 string: u16 length, then that many bytes ending in a NUL (not part of the text).
    mutating func readShortString(_ field: @autoclosure () -> String) throws(FormatError) -> String {
        let at = offset
        let length = Int(try read(UInt16.self, field()))
        guard length >= 1 else { throw .invalidHeader(format: "CTranslate2", detail: "\(field()): empty string at offset \(at)") }
        guard length <= remaining else { throw .truncated(field: field(), offset: offset, needed: length, fileSize: bytes.count) }
        let slice = UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + length - 1]).assumingMemoryBound(to: UInt8.self)
        guard UTF8Validator.isValid(slice) else { throw .invalidUTF8(field: field(), offset: offset) }
        let text = String(decoding: slice, as: UTF8.self)
        offset += length
        return text
    }
}
