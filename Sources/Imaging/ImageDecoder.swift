import CImageCodecs
import Foundation

/// An upright RGB image with what its file said about it.
package struct DecodedPhoto: Sendable {
    /// Pixels after the EXIF orientation is applied.
    package let image: RGBImage
    package let format: ImageFormat
    package let metadata: PhotoMetadata
    /// Width and height of the decoded pixels before orientation (after any reduced decode).
    package let storedWidth: Int
    package let storedHeight: Int
}

/// Turns JPEG, PNG and TIFF-based raw files into upright 8-bit RGB, the way Pillow's
/// `Image.open` + `ImageOps.exif_transpose` + `convert("RGB")` does (bit-identical for JPEG
/// through libjpeg-turbo's defaults, and for 8-bit PNG).
///
/// Raw files (ARW, NEF, CR2, DNG) are decoded through their largest embedded JPEG preview
/// (`RawPreviewLocator`), oriented by the raw file's own IFD0 orientation and dated by its
/// Exif IFD. Every failure is an `ImagingError` naming the file; nothing here traps on input.
package struct ImageDecoder: Sendable {
    /// Images with more pixels are refused before any buffer is allocated.
    package var maxPixels: Int

    package init(maxPixels: Int = 250_000_000) {
        self.maxPixels = maxPixels
    }

    /// Reads and decodes the file at `path`. With `minimumLongSide`, a JPEG may be decoded at
    /// 1/2, 1/4 or 1/8 scale in the DCT domain, as long as its longer side stays at least that
    /// long: much faster for features that look at a small image anyway.
    package func decode(fileAt path: String, minimumLongSide: Int? = nil) throws(ImagingError) -> DecodedPhoto {
        try decode(bytes: try Self.read(path), file: path, minimumLongSide: minimumLongSide)
    }

    /// Decodes an in-memory file; `file` is the name errors report.
    package func decode(bytes: [UInt8], file: String, minimumLongSide: Int? = nil) throws(ImagingError) -> DecodedPhoto {
        guard let format = ImageFormat.sniff(bytes) else {
            let lead = bytes.prefix(4).map { String(format: "%02X", $0) }.joined(separator: " ")
            if bytes.isEmpty { throw .truncated(file: file, format: .jpeg, detail: "the file is empty") }
            throw .unsupportedFormat(file: file, leadingBytes: lead.isEmpty ? "nothing" : lead)
        }
        switch format {
        case .jpeg:
            let meta = ExifReader.metadata(of: bytes, format: .jpeg, file: file)
            return try decodeJPEG(bytes, range: 0..<bytes.count, file: file, metadata: meta,
                                  format: .jpeg, minimumLongSide: minimumLongSide)
        case .png:
            let meta = ExifReader.metadata(of: bytes, format: .png, file: file)
            let stored = try decodePNG(bytes, file: file)
            return DecodedPhoto(image: meta.orientation.apply(to: stored), format: .png, metadata: meta,
                                storedWidth: stored.width, storedHeight: stored.height)
        case .tiffRaw:
            let tiff = try TIFFStructure(bytes: bytes, file: file)
            var meta = try ExifReader.metadata(of: tiff)
            guard let preview = try RawPreviewLocator.largestPreview(in: tiff) else {
                throw .unsupportedVariant(file: file, format: .tiffRaw, detail: "no embedded JPEG preview")
            }
            let range = preview.offset..<(preview.offset + preview.length)
            // The container's IFD0 orientation governs; the preview's own EXIF, if any, only
            // fills in a capture time the container lacks.
            let inner = ExifReader.metadata(of: Array(bytes[range]), format: .jpeg, file: file)
            if meta.captureTime == nil { meta.captureTime = inner.captureTime }
            return try decodeJPEG(bytes, range: range, file: file, metadata: meta,
                                  format: .tiffRaw, minimumLongSide: minimumLongSide)
        }
    }

    /// Only the metadata (orientation, capture time) of a file, without decoding pixels.
    package func metadata(fileAt path: String) throws(ImagingError) -> PhotoMetadata {
        let bytes = try Self.read(path)
        guard let format = ImageFormat.sniff(bytes) else {
            throw .unsupportedFormat(file: path, leadingBytes: bytes.prefix(4).map { String(format: "%02X", $0) }.joined(separator: " "))
        }
        if format == .tiffRaw { return try ExifReader.metadata(of: TIFFStructure(bytes: bytes, file: path)) }
        return ExifReader.metadata(of: bytes, format: format, file: path)
    }

    static func read(_ path: String) throws(ImagingError) -> [UInt8] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw .unreadable(file: path, reason: "no such file")
        }
        guard !isDirectory.boolValue else { throw .unreadable(file: path, reason: "is a directory") }
        do {
            return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path), options: .mappedIfSafe))
        } catch {
            throw .unreadable(file: path, reason: "\(error.localizedDescription)")
        }
    }

    private func decodeJPEG(_ bytes: [UInt8], range: Range<Int>, file: String, metadata: PhotoMetadata,
                            format: ImageFormat, minimumLongSide: Int?) throws(ImagingError) -> DecodedPhoto {
        var scale: Int32 = 1
        if let minimumLongSide, let frame = JPEGFrame.read(bytes, from: range.lowerBound, to: range.upperBound) {
            let long = max(frame.width, frame.height)
            for denom: Int32 in [8, 4, 2] where (long + Int(denom) - 1) / Int(denom) >= minimumLongSide {
                scale = denom
                break
            }
        }
        var result = ic_image()
        let status = bytes.withUnsafeBufferPointer { buffer in
            ic_decode_jpeg(buffer.baseAddress! + range.lowerBound, range.count, scale, maxPixels, &result)
        }
        let stored = try take(&result, status: status, file: file, format: format)
        return DecodedPhoto(image: metadata.orientation.apply(to: stored), format: format, metadata: metadata,
                            storedWidth: stored.width, storedHeight: stored.height)
    }

    private func decodePNG(_ bytes: [UInt8], file: String) throws(ImagingError) -> RGBImage {
        var result = ic_image()
        let status = bytes.withUnsafeBufferPointer { buffer in
            ic_decode_png(buffer.baseAddress!, buffer.count, maxPixels, &result)
        }
        return try take(&result, status: status, file: file, format: .png)
    }

    /// Copies the C result into an `RGBImage` and frees it, or maps the status to an error.
    private func take(_ result: inout ic_image, status: ic_status, file: String,
                             format: ImageFormat) throws(ImagingError) -> RGBImage {
        defer { ic_image_free(&result) }
        let message = withUnsafeBytes(of: result.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        switch status {
        case IC_OK:
            let w = Int(result.width), h = Int(result.height)
            let pixels = [UInt8](UnsafeBufferPointer(start: result.pixels, count: w * h * 3))
            return RGBImage(width: w, height: h, pixels: pixels)
        case IC_TRUNCATED: throw .truncated(file: file, format: format, detail: message)
        case IC_UNSUPPORTED: throw .unsupportedVariant(file: file, format: format, detail: message)
        case IC_TOO_LARGE:
            let dims = message.split(separator: " ").first?.split(separator: "x").compactMap { Int($0) } ?? []
            throw .tooLarge(file: file, width: dims.first ?? 0, height: dims.last ?? 0, limit: maxPixels)
        case IC_NO_MEMORY: throw .unreadable(file: file, reason: "out of memory while decoding")
        default: throw .corrupt(file: file, format: format, detail: message)
        }
    }
}
