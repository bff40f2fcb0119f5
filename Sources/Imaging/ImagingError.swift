/// Everything that can go wrong turning a file into pixels. Each case names the file (as given
/// by the caller) and says what is wrong, so one line of a folder report is enough to act on.
package enum ImagingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file could not be read at all (missing, permissions, a directory).
    case unreadable(file: String, reason: String)
    /// The leading bytes match no format we decode.
    case unsupportedFormat(file: String, leadingBytes: String)
    /// The data ends before the image does.
    case truncated(file: String, format: ImageFormat, detail: String)
    /// The data is malformed; `detail` is the decoder's or parser's words.
    case corrupt(file: String, format: ImageFormat, detail: String)
    /// Well-formed, but a variant we do not convert (an unusual colour space, a TIFF without a
    /// JPEG preview).
    case unsupportedVariant(file: String, format: ImageFormat, detail: String)
    /// More pixels than the decoder's limit (protects memory against hostile headers).
    case tooLarge(file: String, width: Int, height: Int, limit: Int)

    package var file: String {
        switch self {
        case .unreadable(let f, _), .unsupportedFormat(let f, _), .truncated(let f, _, _),
             .corrupt(let f, _, _), .unsupportedVariant(let f, _, _), .tooLarge(let f, _, _, _):
            return f
        }
    }

    package var description: String {
        switch self {
        case .unreadable(let f, let reason): return "\(f): cannot read: \(reason)"
        case .unsupportedFormat(let f, let lead): return "\(f): not a JPEG, PNG or TIFF-based raw file (starts with \(lead))"
        case .truncated(let f, let format, let detail): return "\(f): truncated \(format.rawValue): \(detail)"
        case .corrupt(let f, let format, let detail): return "\(f): corrupt \(format.rawValue): \(detail)"
        case .unsupportedVariant(let f, let format, let detail): return "\(f): unsupported \(format.rawValue): \(detail)"
        case .tooLarge(let f, let w, let h, let limit): return "\(f): \(w)x\(h) exceeds the limit of \(limit) pixels"
        }
    }
}

/// The container formats `ImageDecoder` reads, recognised by their leading bytes.
package enum ImageFormat: String, Sendable, Equatable, CaseIterable {
    case jpeg = "JPEG"
    case png = "PNG"
    /// A TIFF structure (ARW, NEF, CR2, DNG, plain TIFF): decoded through its embedded JPEG.
    case tiffRaw = "TIFF/raw"

    /// The format whose signature `bytes` start with, or nil.
    package static func sniff(_ bytes: [UInt8]) -> ImageFormat? {
        if bytes.count >= 3, bytes[0] == 0xFF, bytes[1] == 0xD8, bytes[2] == 0xFF { return .jpeg }
        if bytes.count >= 8, bytes[0..<8].elementsEqual([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if bytes.count >= 8, bytes[0..<4].elementsEqual([0x49, 0x49, 0x2A, 0x00]) || bytes[0..<4].elementsEqual([0x4D, 0x4D, 0x00, 0x2A]) {
            return .tiffRaw
        }
        return nil
    }
}
