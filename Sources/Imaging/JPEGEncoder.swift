import CImageCodecs

/// Encodes `RGBImage`s as JPEG through libjpeg-turbo: thumbnails, and generated test and
/// benchmark folders.
package enum JPEGEncoder {
    /// A JFIF JPEG (4:2:0 chroma) of `image` at `quality` (1...100); `progressive` writes
    /// libjpeg's standard progressive scan script instead of one baseline scan. Both carry the same
    /// quantized coefficients, so they decode to the same pixels.
    package static func encode(_ image: RGBImage, quality: Int = 90, progressive: Bool = false) throws(ImagingError) -> [UInt8] {
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        var message = [CChar](repeating: 0, count: 200)
        let status = image.pixels.withUnsafeBufferPointer { pixels in
            ic_encode_jpeg(pixels.baseAddress, Int32(image.width), Int32(image.height), Int32(quality),
                           progressive ? 1 : 0, &out, &size, &message)
        }
        guard status == IC_OK, let out else {
            let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw .unsupportedVariant(file: "<encoder>", format: .jpeg, detail: text)
        }
        defer { ic_buffer_free(out) }
        return [UInt8](UnsafeBufferPointer(start: out, count: size))
    }

    /// `jpeg` rewritten as a progressive JPEG with the same coefficients (lossless; see
    /// `ic_transcode_jpeg_progressive`).
    package static func progressive(from jpeg: [UInt8]) throws(ImagingError) -> [UInt8] {
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        var message = [CChar](repeating: 0, count: 200)
        let status = jpeg.withUnsafeBufferPointer { bytes in
            ic_transcode_jpeg_progressive(bytes.baseAddress, bytes.count, &out, &size, &message)
        }
        guard status == IC_OK, let out else {
            let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw .corrupt(file: "<transcoder>", format: .jpeg, detail: text)
        }
        defer { ic_buffer_free(out) }
        return [UInt8](UnsafeBufferPointer(start: out, count: size))
    }
}
