/// A bounds-checked view of one FlatBuffers table inside a file's bytes.
///
/// Byte layout (FlatBuffers binary format, little-endian throughout):
///   buffer start   u32 offset to the root table, then (optionally) a 4-byte file identifier
///   table at t     i32 soffset: its vtable sits at t - soffset; then the table's inline fields
///   vtable at v    u16 vtable size in bytes · u16 table inline size · u16 per field: the field's
///                  offset from t, 0 when the field is absent (its schema default applies)
///   offset field   u32 at p pointing forward to p + value (a table, a vector or a string)
///   vector at v    u32 element count, then the elements (scalars inline, tables as u32 offsets
///                  relative to each element's own position)
///   string         a vector of bytes (UTF-8), followed by a 0 byte the reader does not need
/// Every offset read from the file is checked against the file's size before it is followed, so a
/// crafted file gives a `FormatError` naming the field and the offset, never a read outside `bytes`.
struct FlatBufferTable {
    let bytes: UnsafeRawBufferPointer
    /// Absolute offset of the table.
    let position: Int
    /// Absolute offset of its vtable and the vtable's size in bytes.
    private let vtable: Int
    private let vtableSize: Int
    /// Bytes of inline fields from `position` (what the vtable claims, checked against the file).
    private let tableSize: Int
    /// What this table is, for errors (`SubGraph[0].Tensor[12]`).
    let name: String

    /// The table at `position`, its vtable checked to lie inside the file.
    init(bytes: UnsafeRawBufferPointer, position: Int, name: String) throws(FormatError) {
        self.bytes = bytes
        self.position = position
        self.name = name
        let soffset = Int(try Self.load(Int32.self, bytes, at: position, "\(name) vtable offset"))
        let (vtable, overflow) = position.subtractingReportingOverflow(soffset)
        guard !overflow, vtable >= 0, vtable <= bytes.count - 4 else {
            throw .truncated(field: "\(name) vtable", offset: position, needed: 4, fileSize: bytes.count)
        }
        let vtableSize = Int(try Self.load(UInt16.self, bytes, at: vtable, "\(name) vtable size"))
        let tableSize = Int(try Self.load(UInt16.self, bytes, at: vtable + 2, "\(name) table size"))
        guard vtableSize >= 4, vtableSize % 2 == 0, vtableSize <= bytes.count - vtable else {
            throw .invalidHeader(format: "FlatBuffers", detail: "\(name): vtable of \(vtableSize) bytes at offset \(vtable)")
        }
        guard tableSize >= 4, tableSize <= bytes.count - position else {
            throw .truncated(field: "\(name) inline fields", offset: position, needed: tableSize, fileSize: bytes.count)
        }
        self.vtable = vtable
        self.vtableSize = vtableSize
        self.tableSize = tableSize
    }

    /// The root table of a buffer whose first four bytes point at it.
    static func root(of bytes: UnsafeRawBufferPointer, name: String) throws(FormatError) -> FlatBufferTable {
        let offset = Int(try load(UInt32.self, bytes, at: 0, "root table offset"))
        return try FlatBufferTable(bytes: bytes, position: offset, name: name)
    }

    static func load<T: FixedWidthInteger>(_: T.Type, _ bytes: UnsafeRawBufferPointer, at offset: Int,
                                           _ field: @autoclosure () -> String) throws(FormatError) -> T {
        let size = MemoryLayout<T>.size
        guard offset >= 0, offset <= bytes.count - size else {
            throw .truncated(field: field(), offset: offset, needed: size, fileSize: bytes.count)
        }
        return T(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self))
    }

    /// Absolute offset of field `slot` (0-based field index in the schema), nil when absent.
    /// The field's `size` bytes must lie inside the table's inline part.
    private func fieldOffset(_ slot: Int, size: Int, _ field: String) throws(FormatError) -> Int? {
        let entry = 4 + 2 * slot
        guard entry + 2 <= vtableSize else { return nil }
        let relative = Int(try Self.load(UInt16.self, bytes, at: vtable + entry, "\(name).\(field) vtable entry"))
        guard relative != 0 else { return nil }
        guard relative >= 4, relative + size <= tableSize else {
            throw .truncated(field: "\(name).\(field)", offset: position + relative, needed: size, fileSize: position + tableSize)
        }
        return position + relative
    }

    /// A scalar field, or `defaultValue` when absent.
    func scalar<T: FixedWidthInteger>(_ slot: Int, _ field: String, default defaultValue: T) throws(FormatError) -> T {
        guard let at = try fieldOffset(slot, size: MemoryLayout<T>.size, field) else { return defaultValue }
        return try Self.load(T.self, bytes, at: at, "\(name).\(field)")
    }

    /// Follows the u32 offset in field `slot`; nil when absent.
    private func target(_ slot: Int, _ field: String) throws(FormatError) -> Int? {
        guard let at = try fieldOffset(slot, size: 4, field) else { return nil }
        let relative = Int(try Self.load(UInt32.self, bytes, at: at, "\(name).\(field)"))
        guard relative <= bytes.count - at else {
            throw .truncated(field: "\(name).\(field)", offset: at, needed: relative, fileSize: bytes.count)
        }
        return at + relative
    }

    /// A sub-table field; nil when absent.
    func table(_ slot: Int, _ field: String, name: String) throws(FormatError) -> FlatBufferTable? {
        guard let at = try target(slot, field) else { return nil }
        return try FlatBufferTable(bytes: bytes, position: at, name: name)
    }

    /// The element range of a vector field: absolute offset of the first element and the count,
    /// checked so that `count * elementSize` bytes fit in the file. (start, 0) when absent.
    func vector(_ slot: Int, _ field: String, elementSize: Int) throws(FormatError) -> (start: Int, count: Int) {
        guard let at = try target(slot, field) else { return (0, 0) }
        let count = Int(try Self.load(UInt32.self, bytes, at: at, "\(name).\(field) length"))
        let start = at + 4
        guard count <= (bytes.count - start) / elementSize else {
            throw .absurdCount(field: "\(name).\(field)", count: UInt64(count), offset: at)
        }
        return (start, count)
    }

    /// The absolute byte range of a `[ubyte]` field (empty when absent).
    func byteRange(_ slot: Int, _ field: String) throws(FormatError) -> Range<Int> {
        let (start, count) = try vector(slot, field, elementSize: 1)
        return start..<(start + count)
    }

    /// A `[ubyte]` field's bytes (empty when absent).
    func bytes(_ slot: Int, _ field: String) throws(FormatError) -> [UInt8] {
        let range = try byteRange(slot, field)
        return [UInt8](UnsafeRawBufferPointer(rebasing: bytes[range]))
    }

    /// A `[int]` field (empty when absent).
    func int32s(_ slot: Int, _ field: String) throws(FormatError) -> [Int32] {
        let (start, count) = try vector(slot, field, elementSize: 4)
        return (0..<count).map { Int32(littleEndian: bytes.loadUnaligned(fromByteOffset: start + 4 * $0, as: Int32.self)) }
    }

    /// A string field ("" when absent), which must be UTF-8.
    func string(_ slot: Int, _ field: String) throws(FormatError) -> String {
        let range = try byteRange(slot, field)
        let slice = UnsafeRawBufferPointer(rebasing: bytes[range]).assumingMemoryBound(to: UInt8.self)
        guard UTF8Validator.isValid(slice) else { throw .invalidUTF8(field: "\(name).\(field)", offset: range.lowerBound) }
        return String(decoding: slice, as: UTF8.self)
    }

    /// A vector-of-tables field, each element named `elementName[i]` (empty when absent).
    func tables(_ slot: Int, _ field: String, elementName: String) throws(FormatError) -> [FlatBufferTable] {
        let (start, count) = try vector(slot, field, elementSize: 4)
        var tables: [FlatBufferTable] = []
        tables.reserveCapacity(count)
        for i in 0..<count {
            let at = start + 4 * i
            let relative = Int(try Self.load(UInt32.self, bytes, at: at, "\(name).\(field)[\(i)]"))
            guard relative <= bytes.count - at else {
                throw .truncated(field: "\(name).\(field)[\(i)]", offset: at, needed: relative, fileSize: bytes.count)
            }
            tables.append(try FlatBufferTable(bytes: bytes, position: at + relative, name: "\(elementName)[\(i)]"))
        }
        return tables
    }
}
