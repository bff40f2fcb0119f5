/// An 8-bit RGB image in row-major, interleaved (HWC) order: what every decoder in this module
/// produces and every image feature reads. Grayscale sources repeat their value in R, G and B.
package struct RGBImage: Sendable, Equatable {
    package let width: Int
    package let height: Int
    /// `width * height * 3` bytes: R, G, B of pixel (x, y) at `(y * width + x) * 3`.
    package var pixels: [UInt8]

    package init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(width > 0 && height > 0 && pixels.count == width * height * 3,
                     "RGBImage: \(pixels.count) bytes for \(width)x\(height)")
        self.width = width
        self.height = height
        self.pixels = pixels
    }
}
