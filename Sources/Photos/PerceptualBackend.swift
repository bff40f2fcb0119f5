import Foundation
import Imaging

/// The built-in descriptor, always available: a DCT hash of the luminance (structure) beside a
/// colour histogram (palette), packed so that the dot product of two descriptors is
/// `0.5 * hashAgreement + 0.5 * histogramOverlap`.
///
/// Recipe `perceptual-v1`:
/// 0. The upright image area-averaged to at most 256 px on the long side (rounded to u8).
/// 1. Luminance Y = 0.299 R + 0.587 G + 0.114 B of that image, area-averaged to 32x32
///    (aspect ignored, so a crop-free resize of the same frame hashes alike).
/// 2. 2-D DCT-II of that plane; the 8x8 lowest frequencies without DC give 63 coefficients; each
///    is +1 above their median, else -1 (the pHash construction). The 63 signs, scaled by
///    sqrt(0.5 / 63), are the first 63 values: their dot product is 0.5 * (1 - 2 * hamming / 63).
/// 3. RGB area-averaged to at most 64 px on the long side, each pixel counted in a 4x4x4 grid of
///    RGB bins (64 bins), frequencies summing to 1; the square roots scaled by sqrt(0.5) are the
///    last 64 values: their dot product is 0.5 * the Bhattacharyya coefficient of the histograms.
/// Dimension 127, unit length.
package struct PerceptualBackend: PhotoDescribing {
    package static let hashSide = 32
    package static let hashFrequencies = 8
    package static let histogramSide = 64

    package let identity = DescriptorIdentity(name: "perceptual", modelFingerprint: "builtin",
                                              preprocessing: "perceptual-v1", dimension: 127)
    /// Unrelated photos share palettes more than structure: hash agreement near 0 and histogram
    /// overlap often 0.5–0.8 give 0.25–0.4; frames of one scene, even blurred, stay above 0.7.
    package let sameSceneThreshold: Float = 0.6
    package let minimumDecodeSide: Int? = 256

    package init() {}

    package func describe(_ image: RGBImage) -> PhotoDescriptor {
        // Both parts look at far fewer pixels than a photo has: one area pass to 256 px first
        // keeps the cost independent of the camera (area-of-area equals area up to rounding).
        let small = image.areaDownscaled(maxSide: 256)
        return PhotoDescriptor(identity: identity, values: hashValues(small) + histogramValues(small))
    }

    /// The 63 signed hash values (step 2).
    func hashValues(_ image: RGBImage) -> [Float] {
        let n = Self.hashSide, k = Self.hashFrequencies
        let plane = LuminancePlane(image).areaDownscaled(width: min(n, image.width), height: min(n, image.height))
        // Small images are padded up by repeating edge samples, so every image hashes a 32x32 grid.
        var grid = [Double](repeating: 0, count: n * n)
        for y in 0..<n {
            for x in 0..<n {
                grid[y * n + x] = Double(plane.values[min(y * plane.height / n, plane.height - 1) * plane.width
                                                      + min(x * plane.width / n, plane.width - 1)])
            }
        }
        // Separable DCT-II restricted to the k lowest frequencies: rows, then columns.
        let basis = (0..<k).map { u in (0..<n).map { x in cos(Double.pi * Double(u) * (2 * Double(x) + 1) / Double(2 * n)) } }
        var rows = [Double](repeating: 0, count: n * k)  // (n rows, k freqs)
        for y in 0..<n { for u in 0..<k { rows[y * k + u] = (0..<n).reduce(0) { $0 + grid[y * n + $1] * basis[u][$1] } } }
        var coefficients: [Double] = []
        for v in 0..<k {
            for u in 0..<k where u + v > 0 {
                coefficients.append((0..<n).reduce(0) { $0 + rows[$1 * k + u] * basis[v][$1] })
            }
        }
        let median = coefficients.sorted()[coefficients.count / 2]
        let scale = Float((0.5 / Double(coefficients.count)).squareRoot())
        return coefficients.map { $0 > median ? scale : -scale }
    }

    /// The 64 histogram values (step 3).
    func histogramValues(_ image: RGBImage) -> [Float] {
        let small = image.areaDownscaled(maxSide: Self.histogramSide)
        var counts = [Float](repeating: 0, count: 64)
        for i in stride(from: 0, to: small.pixels.count, by: 3) {
            let r = Int(small.pixels[i]) >> 6, g = Int(small.pixels[i + 1]) >> 6, b = Int(small.pixels[i + 2]) >> 6
            counts[r * 16 + g * 4 + b] += 1
        }
        let total = Float(small.width * small.height)
        let scale = Float(0.5).squareRoot()
        return counts.map { ($0 / total).squareRoot() * scale }
    }
}
