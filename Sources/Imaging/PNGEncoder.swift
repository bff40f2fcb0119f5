import CImageCodecs

/// Encodes 8-bit grayscale images as PNG through libpng (person masks).
package enum PNGEncoder {
    /// A grayscale PNG of `gray` (`width * height` bytes, row-major).
    package static func encodeGray(_ gray: [UInt8], width: Int, height: Int) throws(ImagingError) -> [UInt8] {
        guard width > 0, height > 0, gray.count == width * height, width <= Int(Int32.max), height <= Int(Int32.max) else {
            throw .unsupportedVariant(file: "<encoder>", format: .png, detail: "\(gray.count) bytes for a \(width) x \(height) image")
        }
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        var message = [CChar](repeating: 0, count: 200)
        let status = gray.withUnsafeBufferPointer { pixels in
            ic_encode_png_gray(pixels.baseAddress, Int32(width), Int32(height), &out, &size, &message)
        }
        guard status == IC_OK, let out else {
            let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw .unsupportedVariant(file: "<encoder>", format: .png, detail: text)
        }
        defer { ic_buffer_free(out) }
        return [UInt8](UnsafeBufferPointer(start: out, count: size))
    }
}
