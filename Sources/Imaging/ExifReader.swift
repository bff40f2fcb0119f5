/// Finds the EXIF TIFF block in JPEG and PNG files and reads orientation and capture time from it.
///
/// JPEG (ITU T.81 Annex B): SOI FFD8, then segments `FF marker, u16 big-endian length (counting
/// itself), payload` until SOS (FFDA). EXIF is an APP1 (FFE1) payload starting "Exif\0\0" followed
/// by a TIFF block. PNG: 8-byte signature, then chunks `u32 length, 4-byte type, data, u32 CRC`;
/// EXIF is the `eXIf` chunk's data (a TIFF block; some writers prefix "Exif\0\0").
enum ExifReader {
    static let orientationTag: UInt16 = 0x0112
    static let exifPointerTag: UInt16 = 0x8769
    static let dateTimeOriginalTag: UInt16 = 0x9003
    static let subSecOriginalTag: UInt16 = 0x9291
    static let offsetOriginalTag: UInt16 = 0x9011

    /// The TIFF block of the first EXIF APP1 segment, or nil.
    static func exifBlock(inJPEG bytes: [UInt8]) -> [UInt8]? {
        var p = 2
        while p + 4 <= bytes.count {
            guard bytes[p] == 0xFF else { return nil }
            let marker = bytes[p + 1]
            if marker == 0xFF { p += 1; continue }  // fill byte
            if marker == 0xD8 || (0xD0...0xD7).contains(marker) || marker == 0x01 { p += 2; continue }
            if marker == 0xDA || marker == 0xD9 { return nil }  // image data starts: no EXIF before it
            let length = Int(bytes[p + 2]) << 8 | Int(bytes[p + 3])
            guard length >= 2, p + 2 + length <= bytes.count else { return nil }
            if marker == 0xE1, length >= 8, bytes[(p + 4)..<(p + 10)].elementsEqual(Array("Exif\0\0".utf8)) {
                return Array(bytes[(p + 10)..<(p + 2 + length)])
            }
            p += 2 + length
        }
        return nil
    }

    /// The TIFF block of the `eXIf` chunk, or nil.
    static func exifBlock(inPNG bytes: [UInt8]) -> [UInt8]? {
        var p = 8
        while p + 12 <= bytes.count {
            let length = bytes[p..<(p + 4)].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: bytes[(p + 4)..<(p + 8)], as: UTF8.self)
            guard length >= 0, p + 12 + length <= bytes.count else { return nil }
            if type == "eXIf" {
                var block = Array(bytes[(p + 8)..<(p + 8 + length)])
                if block.starts(with: Array("Exif\0\0".utf8)) { block.removeFirst(6) }
                return block
            }
            if type == "IEND" { return nil }
            p += 12 + length
        }
        return nil
    }

    /// Orientation (IFD0) and capture time (Exif IFD) of a TIFF structure. A missing or
    /// out-of-range value leaves the default; a broken directory throws.
    static func metadata(of tiff: TIFFStructure) throws(ImagingError) -> PhotoMetadata {
        var meta = PhotoMetadata()
        let ifd0 = try tiff.directory(at: try tiff.firstIFD()).entries
        if let e = ifd0.first(where: { $0.tag == orientationTag }), let v = try tiff.unsigned(e),
           let o = ExifOrientation(rawValue: v) {
            meta.orientation = o
        }
        if let e = ifd0.first(where: { $0.tag == exifPointerTag }), let offset = try tiff.unsigned(e), offset > 0 {
            let exif = try tiff.directory(at: offset).entries
            func text(_ tag: UInt16) throws(ImagingError) -> String? {
                guard let e = exif.first(where: { $0.tag == tag }) else { return nil }
                return try tiff.ascii(e)
            }
            if let date = try text(dateTimeOriginalTag) {
                meta.captureTime = CaptureTime(dateTime: date, subsecond: try text(subSecOriginalTag),
                                               offset: try text(offsetOriginalTag))
            }
        }
        return meta
    }

    /// Metadata of a JPEG or PNG file; EXIF that cannot be parsed counts as absent, because the
    /// pixels are still good (Pillow also shows such files upright as stored).
    static func metadata(of bytes: [UInt8], format: ImageFormat, file: String) -> PhotoMetadata {
        let block: [UInt8]?
        switch format {
        case .jpeg: block = exifBlock(inJPEG: bytes)
        case .png: block = exifBlock(inPNG: bytes)
        case .tiffRaw: block = bytes
        }
        guard let block, let tiff = try? TIFFStructure(bytes: block, file: file),
              let meta = try? metadata(of: tiff) else { return PhotoMetadata() }
        return meta
    }
}
