import Imaging

/// How usable one frame is: its sharpness and how much of it is clipped.
///
/// Recipe (`quality-v1`):
/// - Luminance Y = 0.299 R + 0.587 G + 0.114 B on the 0...255 values of the upright image
///   (float, unrounded).
/// - Resolution: the decoded image, area-averaged so its longer side is at most
///   `analysisSide` = 1024 px (smaller images are used as they are). A fixed scale keeps scores of
///   cameras with different resolutions comparable and the cost bounded.
/// - Sharpness = variance of the Laplacian: the 4-neighbour kernel [[0,1,0],[1,-4,1],[0,1,0]]
///   on interior pixels only (no padding, (H-2)x(W-2) outputs), population variance (divide by N)
///   in float64. (For images within 1024 px this is the golden set's `lapvar_y`.)
/// - Clipping = the fraction of luminance samples at or below 2 or at or above 253 (blown
///   highlights and crushed shadows carry no detail).
/// - Score, the ranking key: sharpness * (1 - min(1, 2 * clipping)). A frame with 5 % clipped
///   loses 10 %; one half clipped scores 0 however crisp its edges.
package struct FrameQuality: Sendable, Equatable, Codable {
    package static let analysisSide = 1024

    package let sharpness: Double
    package let clipping: Double

    package var score: Double { sharpness * (1 - min(1, 2 * clipping)) }

    package init(sharpness: Double, clipping: Double) {
        self.sharpness = sharpness
        self.clipping = clipping
    }

    package init(_ image: RGBImage) {
        self.init(LuminancePlane(image).areaDownscaled(maxSide: Self.analysisSide))
    }

    package init(_ plane: LuminancePlane) {
        let w = plane.width, h = plane.height
        var clipped = 0
        for v in plane.values where v <= 2 || v >= 253 { clipped += 1 }
        clipping = Double(clipped) / Double(plane.values.count)
        guard w >= 3, h >= 3 else {
            sharpness = 0
            return
        }
        var sum = 0.0, sumSquares = 0.0
        plane.values.withUnsafeBufferPointer { p in
            for y in 1..<(h - 1) {
                for x in 1..<(w - 1) {
                    let i = y * w + x
                    let l = Double(p[i - w]) + Double(p[i + w]) + Double(p[i - 1]) + Double(p[i + 1]) - 4 * Double(p[i])
                    sum += l
                    sumSquares += l * l
                }
            }
        }
        let n = Double((w - 2) * (h - 2))
        let mean = sum / n
        sharpness = max(0, sumSquares / n - mean * mean)
    }
}
