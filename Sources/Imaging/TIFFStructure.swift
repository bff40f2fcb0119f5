import Foundation

/// Reads the directory structure of a TIFF block: the container of EXIF data inside JPEG and PNG
/// files, and of ARW, NEF, CR2 and DNG raw files.
///
/// Byte layout (TIFF 6.0 §2; every offset is relative to the first byte of the header):
///   0  "II" (little-endian) or "MM" (big-endian)
///   2  u16 42 (CR2 then has "CR" at 8, which we do not need)
///   4  u32 offset of IFD0
/// IFD: u16 entry count N; N entries of 12 bytes; u32 offset of the next IFD (0 = none).
/// Entry: u16 tag, u16 type, u32 count, then 4 bytes that hold the value itself when
/// count × size(type) ≤ 4, else the u32 offset of the value.
/// Types used here: 1 BYTE, 2 ASCII, 3 SHORT, 4 LONG, 7 UNDEFINED, 13 IFD (sizes 1, 1, 2, 4, 1, 4).
struct TIFFStructure {
    /// One directory entry; `valueOffset` is absolute in `bytes`.
    struct Entry {
        let tag: UInt16
        let type: UInt16
        let count: Int
        let valueOffset: Int
    }

    let bytes: [UInt8]
    /// Where the TIFF header starts in `bytes`.
    let base: Int
    let bigEndian: Bool
    let file: String

    /// Parses the header at `base`.
    init(bytes: [UInt8], base: Int = 0, file: String) throws(ImagingError) {
        self.bytes = bytes
        self.base = base
        self.file = file
        guard base >= 0, bytes.count - base >= 8 else {
            throw .truncated(file: file, format: .tiffRaw, detail: "TIFF header needs 8 bytes")
        }
        switch (bytes[base], bytes[base + 1]) {
        case (0x49, 0x49): bigEndian = false
        case (0x4D, 0x4D): bigEndian = true
        default: throw .corrupt(file: file, format: .tiffRaw, detail: "byte order mark is not II or MM")
        }
        guard try u16(at: base + 2) == 42 else {
            throw .corrupt(file: file, format: .tiffRaw, detail: "TIFF magic is not 42")
        }
    }

    /// Offset (relative to the header) of IFD0.
    func firstIFD() throws(ImagingError) -> Int { Int(try u32(at: base + 4)) }

    /// The entries of the IFD at `offset` (relative to the header) and the next IFD's offset.
    func directory(at offset: Int) throws(ImagingError) -> (entries: [Entry], next: Int) {
        let start = base + offset
        let count = Int(try u16(at: start))
        guard count <= 4096 else { throw fault("IFD at \(offset) claims \(count) entries") }
        var entries: [Entry] = []
        entries.reserveCapacity(count)
        for i in 0..<count {
            let e = start + 2 + i * 12
            let tag = try u16(at: e), type = try u16(at: e + 2)
            let n = Int(try u32(at: e + 4))
            let size = Self.typeSize(type) * n
            let valueOffset = size <= 4 ? e + 8 : base + Int(try u32(at: e + 8))
            entries.append(Entry(tag: tag, type: type, count: n, valueOffset: valueOffset))
        }
        let next = Int(try u32(at: start + 2 + count * 12))
        return (entries, next)
    }

    /// Element `index` of an integer entry (BYTE, SHORT, LONG, IFD), or nil for other types.
    func unsigned(_ entry: Entry, index: Int = 0) throws(ImagingError) -> Int? {
        guard index < entry.count else { return nil }
        switch entry.type {
        case 1, 7: return Int(try u8(at: entry.valueOffset + index))
        case 3: return Int(try u16(at: entry.valueOffset + index * 2))
        case 4, 13: return Int(try u32(at: entry.valueOffset + index * 4))
        default: return nil
        }
    }

    /// All elements of an integer entry (capped at 1024: SubIFD and strip lists are short).
    func unsignedList(_ entry: Entry) throws(ImagingError) -> [Int] {
        var out: [Int] = []
        for i in 0..<min(entry.count, 1024) {
            if let v = try unsigned(entry, index: i) { out.append(v) }
        }
        return out
    }

    /// An ASCII entry without its trailing NULs, or nil for another type.
    func ascii(_ entry: Entry) throws(ImagingError) -> String? {
        guard entry.type == 2 || entry.type == 7, entry.count <= 256 else { return nil }
        guard entry.valueOffset >= 0, entry.valueOffset + entry.count <= bytes.count else {
            throw fault("string at \(entry.valueOffset - base) runs past the end")
        }
        let raw = bytes[entry.valueOffset..<(entry.valueOffset + entry.count)].prefix { $0 != 0 }
        return String(decoding: raw, as: UTF8.self).trimmingCharacters(in: .whitespaces)
    }

    static func typeSize(_ type: UInt16) -> Int {
        switch type {
        case 3, 8: return 2
        case 4, 9, 11, 13: return 4
        case 5, 10, 12: return 8
        default: return 1
        }
    }

    func fault(_ detail: String) -> ImagingError { .corrupt(file: file, format: .tiffRaw, detail: detail) }

    func u8(at p: Int) throws(ImagingError) -> UInt8 {
        guard p >= 0, p < bytes.count else { throw fault("offset \(p - base) is past the end") }
        return bytes[p]
    }

    func u16(at p: Int) throws(ImagingError) -> UInt16 {
        guard p >= 0, p + 2 <= bytes.count else { throw fault("offset \(p - base) is past the end") }
        let a = UInt16(bytes[p]), b = UInt16(bytes[p + 1])
        return bigEndian ? a << 8 | b : b << 8 | a
    }

    func u32(at p: Int) throws(ImagingError) -> UInt32 {
        guard p >= 0, p + 4 <= bytes.count else { throw fault("offset \(p - base) is past the end") }
        let b = (0..<4).map { UInt32(bytes[p + $0]) }
        return bigEndian ? b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3] : b[3] << 24 | b[2] << 16 | b[1] << 8 | b[0]
    }
}
