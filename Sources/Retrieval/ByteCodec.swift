/// Little-endian binary encoding for the index journal: fixed-width integers, f32 arrays, and
/// strings as a u32 byte count followed by UTF-8.
struct ByteWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 256) { bytes.reserveCapacity(capacity) }

    mutating func u8(_ v: UInt8) { bytes.append(v) }
    mutating func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
    mutating func u64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }

    mutating func string(_ s: String) {
        let utf8 = Array(s.utf8)
        u32(UInt32(utf8.count))
        bytes.append(contentsOf: utf8)
    }

    /// The floats' IEEE bits, little-endian (the in-memory layout on every platform we build for).
    mutating func floats(_ values: UnsafeBufferPointer<Float>) {
        for v in values { u32(v.bitPattern) }
    }

    mutating func raw(_ other: [UInt8]) { bytes.append(contentsOf: other) }
}

/// Reads what `ByteWriter` wrote, refusing to read past the end.
struct ByteReader {
    /// Why a payload did not decode (the journal maps it to `corruptIndex`).
    struct Malformed: Error, Equatable {
        let field: String
        let offset: Int
    }

    let bytes: UnsafeRawBufferPointer
    private(set) var offset: Int

    init(_ bytes: UnsafeRawBufferPointer, offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    var remaining: Int { bytes.count - offset }

    private mutating func take(_ n: Int, _ field: String) throws(Malformed) -> Int {
        guard n >= 0, n <= remaining else { throw Malformed(field: field, offset: offset) }
        defer { offset += n }
        return offset
    }

    mutating func u8(_ field: String) throws(Malformed) -> UInt8 {
        bytes[try take(1, field)]
    }

    mutating func u32(_ field: String) throws(Malformed) -> UInt32 {
        UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: try take(4, field), as: UInt32.self))
    }

    mutating func u64(_ field: String) throws(Malformed) -> UInt64 {
        UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: try take(8, field), as: UInt64.self))
    }

    /// A count that must fit in the bytes left, each item taking at least `minItemBytes`.
    mutating func count(_ field: String, minItemBytes: Int) throws(Malformed) -> Int {
        let n = Int(try u32(field))
        guard n <= remaining / max(1, minItemBytes) else { throw Malformed(field: field, offset: offset - 4) }
        return n
    }

    mutating func string(_ field: String) throws(Malformed) -> String {
        let n = try count(field, minItemBytes: 1)
        let start = try take(n, field)
        let slice = UnsafeRawBufferPointer(rebasing: bytes[start..<(start + n)])
        guard let s = String(validating: slice, as: UTF8.self) else { throw Malformed(field: field, offset: start) }
        return s
    }

    mutating func floats(_ n: Int, _ field: String, into out: inout [Float]) throws(Malformed) {
        let start = try take(n * 4, field)
        for i in 0..<n {
            out.append(Float(bitPattern: UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: start + 4 * i, as: UInt32.self))))
        }
    }
}

/// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum of every journal record.
enum CRC32C {
    private static let table: [UInt32] = (0..<256).map { i in
        var c = UInt32(i)
        for _ in 0..<8 { c = c & 1 != 0 ? (c >> 1) ^ 0x82F6_3B78 : c >> 1 }
        return c
    }

    static func checksum(_ bytes: UnsafeRawBufferPointer, seed: UInt32 = 0) -> UInt32 {
        var c = ~seed
        table.withUnsafeBufferPointer { t in
            for b in bytes { c = t[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        }
        return ~c
    }

    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBytes { checksum($0) }
    }
}
