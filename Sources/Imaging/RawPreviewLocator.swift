/// Finds the full-size JPEG preview that ARW, NEF, CR2 and DNG files embed, so a raw file can be
/// shown and compared without a raw developer.
///
/// Those formats are TIFF structures (see `TIFFStructure`); the preview is a complete JFIF/EXIF
/// JPEG stream referenced from some directory by either
/// - JPEGInterchangeFormat (0x0201) + JPEGInterchangeFormatLength (0x0202): ARW, NEF (in a SubIFD),
///   DNG and the small thumbnails in IFD1 of most formats; or
/// - a single strip, StripOffsets (0x0111) + StripByteCounts (0x0117): CR2's IFD0 and DNG preview
///   IFDs (Compression 6 or 7).
/// Directories searched: IFD0 and its chain (IFD1, ...), and every SubIFD (0x014A), recursively.
/// Candidates are kept only if they start with SOI and their frame header is baseline, extended or
/// progressive Huffman (SOF0/1/2): DNG stores raw sensor data as lossless JPEG (SOF3), which is not
/// a picture. The one with the most pixels wins (ties: more bytes).
enum RawPreviewLocator {
    struct Preview: Equatable {
        let offset: Int
        let length: Int
        let width: Int
        let height: Int
    }

    static let subIFDsTag: UInt16 = 0x014A
    static let maxDirectories = 64

    static func largestPreview(in tiff: TIFFStructure) throws(ImagingError) -> Preview? {
        var pending = [try tiff.firstIFD()]
        var visited = Set<Int>()
        var best: Preview?
        while let offset = pending.popLast(), visited.count < maxDirectories {
            guard offset > 0, visited.insert(offset).inserted else { continue }
            let (entries, next) = try tiff.directory(at: offset)
            pending.append(next)
            func value(_ tag: UInt16) throws(ImagingError) -> Int? {
                guard let e = entries.first(where: { $0.tag == tag }), e.count == 1 else { return nil }
                return try tiff.unsigned(e)
            }
            if let e = entries.first(where: { $0.tag == subIFDsTag }) {
                pending.append(contentsOf: try tiff.unsignedList(e))
            }
            var spans: [(Int, Int)] = []
            if let start = try value(0x0201), let length = try value(0x0202) { spans.append((start, length)) }
            if let start = try value(0x0111), let length = try value(0x0117) { spans.append((start, length)) }
            for (start, length) in spans {
                let absolute = tiff.base + start
                guard length > 4, absolute >= 0, absolute + length <= tiff.bytes.count,
                      let frame = JPEGFrame.read(tiff.bytes, from: absolute, to: absolute + length),
                      frame.isPicture else { continue }
                let candidate = Preview(offset: absolute, length: length, width: frame.width, height: frame.height)
                if let b = best, (b.width * b.height, b.length) >= (frame.width * frame.height, length) { continue }
                best = candidate
            }
        }
        return best
    }
}

/// The frame header (SOFn) of a JPEG stream: its size and coding process.
struct JPEGFrame: Equatable {
    let marker: UInt8
    let width: Int
    let height: Int

    /// Baseline (SOF0), extended (SOF1) or progressive (SOF2) Huffman: what libjpeg decodes to a
    /// picture. Lossless (SOF3) and arithmetic coding are refused.
    var isPicture: Bool { marker <= 0xC2 }

    /// Walks the segments of the stream in `bytes[start..<end]` (layout in `ExifReader`) up to the
    /// first SOFn; SOFn payload: u8 precision, u16 height, u16 width, ... (big-endian).
    static func read(_ bytes: [UInt8], from start: Int, to end: Int) -> JPEGFrame? {
        guard end - start >= 4, bytes[start] == 0xFF, bytes[start + 1] == 0xD8 else { return nil }
        var p = start + 2
        while p + 4 <= end {
            guard bytes[p] == 0xFF else { return nil }
            let marker = bytes[p + 1]
            if marker == 0xFF { p += 1; continue }
            if (0xD0...0xD7).contains(marker) || marker == 0x01 { p += 2; continue }
            if marker == 0xDA || marker == 0xD9 { return nil }
            let length = Int(bytes[p + 2]) << 8 | Int(bytes[p + 3])
            guard length >= 2, p + 2 + length <= end else { return nil }
            if (0xC0...0xCF).contains(marker), marker != 0xC4, marker != 0xC8, marker != 0xCC {
                guard length >= 7 else { return nil }
                let h = Int(bytes[p + 5]) << 8 | Int(bytes[p + 6])
                let w = Int(bytes[p + 7]) << 8 | Int(bytes[p + 8])
                return w > 0 && h > 0 ? JPEGFrame(marker: marker, width: w, height: h) : nil
            }
            p += 2 + length
        }
        return nil
    }
}
