/// Pillow's `Image.resize(size, BILINEAR)` for 8-bit images, bit for bit (Pillow
/// src/libImaging/Resample.c; the golden tools' `pillow_bilinear_reference` restates it):
/// a separable triangle filter whose support widens with the reduction factor (antialiased),
/// weights in fixed point with 22 fractional bits, horizontal pass first and rounded to u8,
/// then the vertical pass; a pass whose size is unchanged is skipped.
extension EfficientNetPreprocessing {
    static let precisionBits = 22

    package static func resize(_ image: RGBImage, width: Int, height: Int) -> RGBImage {
        precondition(width > 0 && height > 0, "resize: empty output size")
        var current = image
        if width != image.width {
            current = pass(current, coefficients(input: image.width, output: width), horizontal: true)
        }
        if height != image.height {
            current = pass(current, coefficients(input: image.height, output: height), horizontal: false)
        }
        return current
    }

    /// Per output index: the first input index and the fixed-point weights from there.
    static func coefficients(input: Int, output: Int) -> [(first: Int, weights: [Int])] {
        let scale = Double(input) / Double(output)
        let filterScale = max(scale, 1)
        let support = filterScale  // the triangle's support is 1, scaled
        return (0..<output).map { o in
            let center = (Double(o) + 0.5) * scale
            // C's (int) conversion truncates toward zero; both bounds are clamped to the input.
            let first = max(Int(center - support + 0.5), 0)
            let last = min(Int(center + support + 0.5), input)
            var weights = (first..<max(last, first)).map { x in
                max(0, 1 - abs((Double(x) - center + 0.5) / filterScale))
            }
            let sum = weights.reduce(0, +)
            if sum != 0 { weights = weights.map { $0 / sum } }
            let one = Double(1 << precisionBits)
            return (first, weights.map { $0 < 0 ? Int(-0.5 + $0 * one) : Int(0.5 + $0 * one) })
        }
    }

    private static func pass(_ image: RGBImage, _ coefficients: [(first: Int, weights: [Int])], horizontal: Bool) -> RGBImage {
        let (w, h) = horizontal ? (coefficients.count, image.height) : (image.width, coefficients.count)
        var out = [UInt8](repeating: 0, count: w * h * 3)
        let half = 1 << (precisionBits - 1)
        image.pixels.withUnsafeBufferPointer { src in
            for y in 0..<h {
                for x in 0..<w {
                    let (first, weights) = coefficients[horizontal ? x : y]
                    for c in 0..<3 {
                        var acc = half
                        for (i, weight) in weights.enumerated() {
                            let index = horizontal ? (y * image.width + first + i) * 3 + c : ((first + i) * image.width + x) * 3 + c
                            acc += Int(src[index]) * weight
                        }
                        out[(y * w + x) * 3 + c] = UInt8(clamping: acc >> precisionBits)
                    }
                }
            }
        }
        return RGBImage(width: w, height: h, pixels: out)
    }
}
