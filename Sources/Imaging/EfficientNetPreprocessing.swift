/// The EfficientNet-Lite0 input recipe of golden/vision/README.md ("Preprocessing recipe"),
/// step for step, so every checkpoint of that recipe can be compared bit for bit:
/// shorter side to 256 with Pillow's BILINEAR (`resize`), a floor-centred 224x224 crop
/// (`centerCrop`), then float32 `(u8 / 255 - 0.5) / 0.5` (`normalized`), laid out NCHW.
package enum EfficientNetPreprocessing {
    package static let shortSide = 256
    package static let cropSide = 224

    /// The network input for an oriented RGB image: (3, 224, 224) NCHW floats, R, G, B planes.
    package static func input(from image: RGBImage) -> [Float] {
        let (w, h) = resizedSize(width: image.width, height: image.height)
        let hwc = normalized(centerCrop(resize(image, width: w, height: h)))
        let plane = cropSide * cropSide
        var nchw = [Float](repeating: 0, count: 3 * plane)
        for p in 0..<plane { for c in 0..<3 { nchw[c * plane + p] = hwc[p * 3 + c] } }
        return nchw
    }

    /// Shorter side 256, the longer one floor(256 · long / short).
    package static func resizedSize(width: Int, height: Int) -> (width: Int, height: Int) {
        width <= height ? (shortSide, shortSide * height / width) : (shortSide * width / height, shortSide)
    }

    /// The 224x224 window at left = (W - 224) / 2, top = (H - 224) / 2, rounded down (torchvision's
    /// CenterCrop rounds half to even, one pixel off for odd margins).
    package static func centerCrop(_ image: RGBImage) -> RGBImage {
        precondition(image.width >= cropSide && image.height >= cropSide, "centerCrop: image smaller than the crop")
        let left = (image.width - cropSide) / 2, top = (image.height - cropSide) / 2
        var pixels = [UInt8](repeating: 0, count: cropSide * cropSide * 3)
        for y in 0..<cropSide {
            let src = ((top + y) * image.width + left) * 3
            pixels.replaceSubrange(y * cropSide * 3..<(y + 1) * cropSide * 3, with: image.pixels[src..<src + cropSide * 3])
        }
        return RGBImage(width: cropSide, height: cropSide, pixels: pixels)
    }

    /// HWC floats, each value `(Float(u8) / 255 - 0.5) / 0.5` with both steps rounded to float32
    /// (the reference's order; `u8 / 127.5 - 1` in float64 differs by an ulp on half the values).
    package static func normalized(_ image: RGBImage) -> [Float] {
        let table = (0..<256).map { (Float($0) / 255 - 0.5) / 0.5 }
        return image.pixels.map { table[Int($0)] }
    }
}
