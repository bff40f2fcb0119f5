/// One channel of luminance, Y = 0.299 R + 0.587 G + 0.114 B (ITU-R BT.601 luma weights, as
/// Pillow's convert("L") uses) on the 0...255 values, unrounded. Sharpness, exposure and the
/// perceptual hash read this plane.
package struct LuminancePlane: Sendable, Equatable {
    package let width: Int
    package let height: Int
    /// (height, width), row-major.
    package var values: [Float]

    package init(width: Int, height: Int, values: [Float]) {
        precondition(width > 0 && height > 0 && values.count == width * height, "LuminancePlane: size")
        self.width = width
        self.height = height
        self.values = values
    }

    package init(_ image: RGBImage) {
        var values = [Float](repeating: 0, count: image.width * image.height)
        image.pixels.withUnsafeBufferPointer { p in
            for i in values.indices {
                // Float64 products, one rounding: the golden lapvar_y is computed this way.
                let y = 0.299 * Double(p[3 * i]) + 0.587 * Double(p[3 * i + 1]) + 0.114 * Double(p[3 * i + 2])
                values[i] = Float(y)
            }
        }
        self.init(width: image.width, height: image.height, values: values)
    }

    /// The plane area-downscaled to `width`x`height` (each no larger than now).
    package func areaDownscaled(width outWidth: Int, height outHeight: Int) -> LuminancePlane {
        if outWidth == width && outHeight == height { return self }
        return LuminancePlane(width: outWidth, height: outHeight,
                              values: AreaResampler.downscale(values, width: width, height: height, channels: 1,
                                                              outWidth: outWidth, outHeight: outHeight))
    }

    /// The plane area-downscaled so its longer side is at most `maxSide`; itself when it fits.
    package func areaDownscaled(maxSide: Int) -> LuminancePlane {
        let long = max(width, height)
        guard long > maxSide else { return self }
        return areaDownscaled(width: max(1, Int((Double(width) * Double(maxSide) / Double(long)).rounded())),
                              height: max(1, Int((Double(height) * Double(maxSide) / Double(long)).rounded())))
    }
}
