/// Writes small PNGs for tests (zlib stored blocks, so no compressor is needed): any colour type
/// and bit depth, optional palette and tRNS, optional Adam7 interlacing (bit depth >= 8 only).
/// Layout (PNG spec §5): signature, then chunks `u32 length, type, data, u32 CRC-32(type+data)`.
struct PNGWriter {
    var width: Int
    var height: Int
    var colorType: UInt8
    var bitDepth: UInt8
    /// Packed samples of each row, without the filter byte.
    var rows: [[UInt8]]
    var palette: [UInt8]? = nil
    var transparency: [UInt8]? = nil
    var interlaced = false

    func bytes() -> [UInt8] {
        var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        out += chunk("IHDR", be32(width) + be32(height) + [bitDepth, colorType, 0, 0, interlaced ? 1 : 0])
        if let palette { out += chunk("PLTE", palette) }
        if let transparency { out += chunk("tRNS", transparency) }
        out += chunk("IDAT", zlibStored(scanlines()))
        out += chunk("IEND", [])
        return out
    }

    private func scanlines() -> [UInt8] {
        guard interlaced else { return rows.flatMap { [0] + $0 } }
        precondition(bitDepth >= 8, "PNGWriter: interlacing needs whole-byte pixels")
        let bpp = rows[0].count / width
        let passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
        var data: [UInt8] = []
        for (x0, y0, dx, dy) in passes where x0 < width && y0 < height {
            for y in stride(from: y0, to: height, by: dy) {
                data.append(0)
                for x in stride(from: x0, to: width, by: dx) { data += rows[y][(x * bpp)..<((x + 1) * bpp)] }
            }
        }
        return data
    }

    private func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let n = min(65535, data.count - offset)
            let final: UInt8 = offset + n == data.count ? 1 : 0
            out += [final, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
            out += data[offset..<(offset + n)]
            offset += n
        } while offset < data.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data { a = (a + UInt32(byte)) % 65521; b = (b + a) % 65521 }
        return out + be32(Int(b << 16 | a))
    }

    private func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return be32(data.count) + body + be32(Int(Self.crc32(body)))
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    private func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
}
