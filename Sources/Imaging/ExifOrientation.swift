/// EXIF tag 0x0112: how the stored pixels must be transformed to display upright. Values as in
/// EXIF 2.32 §4.6.4 (TIFF 6.0 "Orientation"); Pillow's `ImageOps.exif_transpose` applies the same
/// transforms.
package enum ExifOrientation: Int, Sendable, Equatable, CaseIterable {
    case up = 1                // as stored
    case upMirrored = 2        // mirror left-right
    case down = 3              // rotate 180°
    case downMirrored = 4      // mirror top-bottom
    case leftMirrored = 5      // transpose (swap x and y)
    case right = 6             // rotate 90° clockwise to display
    case rightMirrored = 7     // transverse (swap x and y through the other diagonal)
    case left = 8              // rotate 90° counter-clockwise to display

    /// Whether the displayed image swaps width and height.
    package var swapsAxes: Bool { rawValue >= 5 }

    /// The upright image. Each output pixel (ox, oy) is read from the stored pixel given below,
    /// with w, h the stored size.
    package func apply(to image: RGBImage) -> RGBImage {
        if self == .up { return image }
        let w = image.width, h = image.height
        let outW = swapsAxes ? h : w, outH = swapsAxes ? w : h
        var out = [UInt8](repeating: 0, count: outW * outH * 3)
        image.pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for oy in 0..<outH {
                    for ox in 0..<outW {
                        let sx: Int, sy: Int
                        switch self {
                        case .up: (sx, sy) = (ox, oy)
                        case .upMirrored: (sx, sy) = (w - 1 - ox, oy)
                        case .down: (sx, sy) = (w - 1 - ox, h - 1 - oy)
                        case .downMirrored: (sx, sy) = (ox, h - 1 - oy)
                        case .leftMirrored: (sx, sy) = (oy, ox)
                        case .right: (sx, sy) = (oy, h - 1 - ox)
                        case .rightMirrored: (sx, sy) = (w - 1 - oy, h - 1 - ox)
                        case .left: (sx, sy) = (w - 1 - oy, ox)
                        }
                        let s = (sy * w + sx) * 3, d = (oy * outW + ox) * 3
                        dst[d] = src[s]; dst[d + 1] = src[s + 1]; dst[d + 2] = src[s + 2]
                    }
                }
            }
        }
        return RGBImage(width: outW, height: outH, pixels: out)
    }
}
