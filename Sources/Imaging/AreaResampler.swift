/// Downscaling by area averaging (a box filter): each output sample is the mean of the input
/// area it covers, input samples cut by the area's edge weighted by the fraction inside. This is
/// what OpenCV's INTER_AREA and Pillow's BOX filter compute for shrinking; it never aliases fine
/// texture into coarse patterns, which the perceptual hash and the sharpness score rely on.
package enum AreaResampler {
    /// Resamples `channels`-interleaved float samples from `width`x`height` to
    /// `outWidth`x`outHeight` (each no larger than the input). Separable: rows first, then columns.
    package static func downscale(_ samples: [Float], width: Int, height: Int, channels: Int,
                                  outWidth: Int, outHeight: Int) -> [Float] {
        precondition(outWidth >= 1 && outHeight >= 1 && outWidth <= width && outHeight <= height,
                     "AreaResampler: \(width)x\(height) to \(outWidth)x\(outHeight) is not a downscale")
        precondition(samples.count == width * height * channels, "AreaResampler: sample count")
        let xs = taps(input: width, output: outWidth)
        let ys = taps(input: height, output: outHeight)
        // (height, outWidth, channels)
        var rows = [Float](repeating: 0, count: height * outWidth * channels)
        samples.withUnsafeBufferPointer { src in
            rows.withUnsafeMutableBufferPointer { dst in
                for y in 0..<height {
                    let s = y * width * channels, d = y * outWidth * channels
                    for (ox, tap) in xs.enumerated() {
                        for (x, w) in zip(tap.first..., tap.weights) {
                            for c in 0..<channels { dst[d + ox * channels + c] += w * src[s + x * channels + c] }
                        }
                    }
                }
            }
        }
        // (outHeight, outWidth, channels)
        var out = [Float](repeating: 0, count: outHeight * outWidth * channels)
        let stride = outWidth * channels
        rows.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for (oy, tap) in ys.enumerated() {
                    for (y, w) in zip(tap.first..., tap.weights) {
                        for i in 0..<stride { dst[oy * stride + i] += w * src[y * stride + i] }
                    }
                }
            }
        }
        return out
    }

    /// For each output index, the first input index it covers and the weights (summing to 1) of
    /// the inputs from there on.
    static func taps(input: Int, output: Int) -> [(first: Int, weights: [Float])] {
        let scale = Double(input) / Double(output)
        return (0..<output).map { o in
            let lo = Double(o) * scale, hi = Double(o + 1) * scale
            let first = Int(lo), last = min(Int(hi.rounded(.up)), input)
            let weights = (first..<last).map { i in
                Float((min(hi, Double(i + 1)) - max(lo, Double(i))) / scale)
            }
            return (first, weights)
        }
    }
}

extension RGBImage {
    /// The image area-downscaled so its longer side is at most `maxSide` (aspect kept, sides
    /// rounded, at least 1); the image itself when it already fits.
    package func areaDownscaled(maxSide: Int) -> RGBImage {
        let long = max(width, height)
        guard long > maxSide else { return self }
        let w = max(1, Int((Double(width) * Double(maxSide) / Double(long)).rounded()))
        let h = max(1, Int((Double(height) * Double(maxSide) / Double(long)).rounded()))
        return areaDownscaled(width: w, height: h)
    }

    /// The image area-averaged to exactly `width`x`height` (each no larger than now), rounded to u8.
    package func areaDownscaled(width outWidth: Int, height outHeight: Int) -> RGBImage {
        if outWidth == width && outHeight == height { return self }
        let out = AreaResampler.downscale(pixels.map(Float.init), width: width, height: height, channels: 3,
                                          outWidth: outWidth, outHeight: outHeight)
        return RGBImage(width: outWidth, height: outHeight,
                        pixels: out.map { UInt8(max(0, min(255, $0.rounded()))) })
    }
}
