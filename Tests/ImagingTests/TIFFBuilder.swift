/// Writes small TIFF structures for tests: EXIF blocks, and synthetic raw-style containers.
/// Layout as `TIFFStructure` reads it: header, then each IFD followed by its out-of-line values,
/// then the blobs (embedded JPEGs, strip data).
struct TIFFBuilder {
    enum Value {
        case short([Int])
        case long([Int])
        case ascii(String)
        /// LONG offset of blob `index` (JPEGInterchangeFormat, StripOffsets).
        case blobOffset(Int)
        /// LONG byte count of blob `index`.
        case blobLength(Int)
        /// LONG offsets of the IFDs with these indices (SubIFDs, Exif IFD pointer).
        case ifds([Int])
    }

    var bigEndian = false
    /// Directories; index 0 is IFD0.
    var ifds: [[(tag: UInt16, value: Value)]] = [[]]
    /// IFDs linked by the next-IFD pointer, starting at IFD0.
    var chain: [Int] = [0]
    var blobs: [[UInt8]] = []

    func build() -> [UInt8] {
        var ifdOffsets: [Int] = []
        var blobOffsets: [Int] = Array(repeating: 0, count: blobs.count)
        // Sizes do not depend on offsets, so one pass with zero offsets fixes the layout.
        var cursor = 8
        for ifd in ifds {
            ifdOffsets.append(cursor)
            cursor += 2 + 12 * ifd.count + 4
            for e in ifd {
                let n = Self.size(of: e.value, blobs: blobs)
                if n > 4 { cursor += n + (n & 1) }
            }
        }
        for i in blobs.indices { blobOffsets[i] = cursor; cursor += blobs[i].count }
        func payload(_ v: Value) -> (type: UInt16, count: Int, bytes: [UInt8]) {
            switch v {
            case .short(let xs): return (3, xs.count, xs.flatMap { int($0, 2) })
            case .long(let xs): return (4, xs.count, xs.flatMap { int($0, 4) })
            case .ascii(let s): return (2, s.utf8.count + 1, Array(s.utf8) + [0])
            case .blobOffset(let i): return (4, 1, int(blobOffsets[i], 4))
            case .blobLength(let i): return (4, 1, int(blobs[i].count, 4))
            case .ifds(let xs): return (4, xs.count, xs.flatMap { int(ifdOffsets[$0], 4) })
            }
        }

        var out: [UInt8] = bigEndian ? [0x4D, 0x4D, 0, 42] : [0x49, 0x49, 42, 0]
        out += int(ifdOffsets[0], 4)
        for (index, ifd) in ifds.enumerated() {
            var overflow = ifdOffsets[index] + 2 + 12 * ifd.count + 4
            var tail: [UInt8] = []
            out += int(ifd.count, 2)
            for e in ifd.sorted(by: { $0.tag < $1.tag }) {
                let p = payload(e.value)
                out += int(Int(e.tag), 2) + int(Int(p.type), 2) + int(p.count, 4)
                if p.bytes.count <= 4 {
                    out += p.bytes + Array(repeating: 0, count: 4 - p.bytes.count)
                } else {
                    out += int(overflow, 4)
                    let padded = p.bytes + (p.bytes.count & 1 == 1 ? [0] : [])
                    tail += padded
                    overflow += padded.count
                }
            }
            let link = chain.firstIndex(of: index).flatMap { $0 + 1 < chain.count ? ifdOffsets[chain[$0 + 1]] : nil } ?? 0
            out += int(link, 4) + tail
        }
        for b in blobs { out += b }
        return out
    }

    private static func size(of v: Value, blobs: [[UInt8]]) -> Int {
        switch v {
        case .short(let xs): return xs.count * 2
        case .long(let xs), .ifds(let xs): return xs.count * 4
        case .ascii(let s): return s.utf8.count + 1
        case .blobOffset, .blobLength: return 4
        }
    }

    private func int(_ v: Int, _ width: Int) -> [UInt8] {
        let le = (0..<width).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) }
        return bigEndian ? le.reversed() : le
    }
}

/// Inserts `tiff` as an EXIF APP1 segment right after the SOI of `jpeg`.
func insertingExif(_ tiff: [UInt8], into jpeg: [UInt8]) -> [UInt8] {
    let payload = Array("Exif\0\0".utf8) + tiff
    let length = payload.count + 2
    return [0xFF, 0xD8, 0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload + jpeg.dropFirst(2)
}
