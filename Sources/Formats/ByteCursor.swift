/// A bounds-checked little-endian reader over a file's bytes; every read checks the bytes left
/// before touching memory, so a hostile file cannot make it read outside `bytes`.
///
/// `field` arguments are autoclosures so the hot path (hundreds of thousands of vocab strings)
/// never builds a field name unless it throws.
struct ByteCursor {
    let bytes: UnsafeRawBufferPointer
    var offset: Int

    init(bytes: UnsafeRawBufferPointer, offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    var remaining: Int { bytes.count - offset }

    /// Capacity to reserve for `count` items. Counts are only proven to fit the file, so a corrupt
    /// count in a large model file could still ask for gigabytes up front; beyond this cap arrays
    /// grow as items actually parse. 2^20 covers the largest real vocabularies in one step.
    static func reservation(_ count: Int) -> Int { Swift.min(count, 1 << 20) }

    mutating func read<T: FixedWidthInteger>(_: T.Type, _ field: @autoclosure () -> String) throws(FormatError) -> T {
        let size = MemoryLayout<T>.size
        guard remaining >= size else {
            throw .truncated(field: field(), offset: offset, needed: size, fileSize: bytes.count)
        }
        let value = bytes.loadUnaligned(fromByteOffset: offset, as: T.self)
        offset += size
        return T(littleEndian: value)
    }

    /// Reads a u64 count and checks that `count` items of at least `minItemSize` bytes fit in the
    /// rest of the file, which bounds every allocation by the file size.
    mutating func readCount(minItemSize: Int, _ field: @autoclosure () -> String) throws(FormatError) -> Int {
        let at = offset
        let raw = try read(UInt64.self, field())
        guard raw <= UInt64(remaining / max(minItemSize, 1)) else {
            throw .absurdCount(field: field(), count: raw, offset: at)
        }
        return Int(raw)
    }

    /// Reads a GGUF string (u64 byte length, then UTF-8 bytes, no terminator), decoded strictly
    /// straight from the mapped bytes.
    mutating func readString(_ field: @autoclosure () -> String) throws(FormatError) -> String {
        let length = try readCount(minItemSize: 1, field())
        let start = offset
        let slice = UnsafeRawBufferPointer(rebasing: bytes[start..<start + length]).assumingMemoryBound(to: UInt8.self)
        guard UTF8Validator.isValid(slice) else { throw .invalidUTF8(field: field(), offset: start) }
        offset += length
        return String(decoding: slice, as: UTF8.self)
    }

    /// Copies `count` little-endian fixed-width values (count already checked against the file).
    mutating func readArray<T: FixedWidthInteger>(_: T.Type, count: Int) -> [T] {
        let byteCount = count * MemoryLayout<T>.size
        let source = bytes.baseAddress.map { $0 + offset }
        let values = [T](unsafeUninitializedCapacity: count) { buffer, initialized in
            if let source, byteCount > 0 {
                UnsafeMutableRawPointer(buffer.baseAddress!).copyMemory(from: source, byteCount: byteCount)
            }
            initialized = count
        }
        offset += byteCount
        #if _endian(big)
        return values.map { T(littleEndian: $0) }
        #else
        return values
        #endif
    }
}
