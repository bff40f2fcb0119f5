/// Writes a zip archive of stored (uncompressed) entries byte by byte, as torch's zip writer does
/// (local headers, central directory, end record; PKWARE APPNOTE 6.3), with real CRC-32s so the
/// archive is valid for any zip tool, not just for our reader.
struct ZipBuilder {
    private var body: [UInt8] = []
    private var directory: [UInt8] = []
    private var count = 0

    mutating func add(_ name: String, _ data: [UInt8]) {
        let nameBytes = Array(name.utf8), crc = Self.crc32(data), local = UInt32(body.count)
        var header: [UInt8] = []
        Self.put32(&header, 0x0403_4B50); Self.put16(&header, 20); Self.put16(&header, 0); Self.put16(&header, 0)
        Self.put16(&header, 0); Self.put16(&header, 0); Self.put32(&header, crc)
        Self.put32(&header, UInt32(data.count)); Self.put32(&header, UInt32(data.count))
        Self.put16(&header, UInt16(nameBytes.count)); Self.put16(&header, 0)
        body += header + nameBytes + data
        Self.put32(&directory, 0x0201_4B50); Self.put16(&directory, 20); Self.put16(&directory, 20)
        Self.put16(&directory, 0); Self.put16(&directory, 0); Self.put16(&directory, 0); Self.put16(&directory, 0)
        Self.put32(&directory, crc); Self.put32(&directory, UInt32(data.count)); Self.put32(&directory, UInt32(data.count))
        Self.put16(&directory, UInt16(nameBytes.count)); Self.put16(&directory, 0); Self.put16(&directory, 0)
        Self.put16(&directory, 0); Self.put16(&directory, 0); Self.put32(&directory, 0); Self.put32(&directory, local)
        directory += nameBytes
        count += 1
    }

    func bytes() -> [UInt8] {
        var end: [UInt8] = []
        Self.put32(&end, 0x0605_4B50); Self.put16(&end, 0); Self.put16(&end, 0)
        Self.put16(&end, UInt16(count)); Self.put16(&end, UInt16(count))
        Self.put32(&end, UInt32(directory.count)); Self.put32(&end, UInt32(body.count)); Self.put16(&end, 0)
        return body + directory + end
    }

    private static func put16(_ out: inout [UInt8], _ v: UInt16) { out += [UInt8(v & 0xFF), UInt8(v >> 8)] }
    private static func put32(_ out: inout [UInt8], _ v: UInt32) { put16(&out, UInt16(v & 0xFFFF)); put16(&out, UInt16(v >> 16)) }

    /// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320), bit by bit: test data is tiny.
    static func crc32(_ data: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
