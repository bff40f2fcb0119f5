import Foundation

/// A rectangle in image pixels, turned by `rotation` radians about its centre (MediaPipe's
/// region of interest).
package struct RotatedRect: Sendable, Equatable {
    package var centerX: Double, centerY: Double
    package var width: Double, height: Double
    package var rotation: Double

    package init(centerX: Double, centerY: Double, width: Double, height: Double, rotation: Double = 0) {
        self.centerX = centerX
        self.centerY = centerY
        self.width = width
        self.height = height
        self.rotation = rotation
    }
}

/// MediaPipe's image-to-tensor step (ImageToTensorCalculator with its OpenCV converter, v0.10.21):
/// a rotated rectangle of the image resampled onto a model's input grid, then each uint8 channel
/// mapped through a value table.
///
/// The resampling is OpenCV's `warpPerspective` with INTER_LINEAR, reproduced in its fixed point:
/// tensor pixel (u, v) maps to the image point p = P1 + u/W·(P2 − P1) + v/H·(P0 − P1), where P0..P2
/// are `cv::RotatedRect::points` (float arithmetic, as OpenCV) and (u, v) index pixels with no
/// half-pixel offset; p is rounded to 1/32 pixel, and the four neighbours are weighted by the
/// 15-bit products (32 − fx)(32 − fy)·32 ... with a final rounding shift. Outside the image,
/// samples are zero (`.zero`) or the nearest edge pixel (`.replicate`).
package enum ImageToTensor {
    package enum Border: Sendable { case zero, replicate }

    /// The ROI MediaPipe's detectors use: the whole image, grown on its shorter side to a square
    /// (letterbox), so a `size` × `size` tensor keeps the aspect ratio.
    package static func letterboxSquare(width: Int, height: Int) -> RotatedRect {
        let side = Double(max(width, height))
        return RotatedRect(centerX: Double(width) / 2, centerY: Double(height) / 2, width: side, height: side)
    }

    /// The `width` × `height` uint8 RGB grid sampled from `rect` of `image`.
    package static func warp(_ image: RGBImage, rect: RotatedRect, width: Int, height: Int, border: Border) -> RGBImage {
        // cv::RotatedRect::points, in float as OpenCV computes them.
        let angle = rect.rotation  // radians; OpenCV takes degrees and converts back with CV_PI / 180
        let b = Float(cos(angle)) * 0.5, a = Float(sin(angle)) * 0.5
        let cx = Float(rect.centerX), cy = Float(rect.centerY), w = Float(rect.width), h = Float(rect.height)
        let f0 = (cx - a * h - b * w, cy + b * h - a * w)
        let f1 = (cx + a * h - b * w, cy - b * h - a * w)
        let p0 = (Double(f0.0), Double(f0.1)), p1 = (Double(f1.0), Double(f1.1))
        let p2 = (Double(2 * cx - f0.0), Double(2 * cy - f0.1))
        let ux = (p2.0 - p1.0) / Double(width), uy = (p2.1 - p1.1) / Double(width)
        let vx = (p0.0 - p1.0) / Double(height), vy = (p0.1 - p1.1) / Double(height)
        let sw = image.width, sh = image.height
        var out = [UInt8](repeating: 0, count: width * height * 3)
        image.pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for v in 0..<height {
                    for u in 0..<width {
                        let x = p1.0 + Double(u) * ux + Double(v) * vx
                        let y = p1.1 + Double(u) * uy + Double(v) * vy
                        // Round to 1/32 pixel, saturating like cv::saturate_cast<int>.
                        let X = Int(max(-1e9, min(1e9, (x * 32).rounded(.toNearestOrEven))))
                        let Y = Int(max(-1e9, min(1e9, (y * 32).rounded(.toNearestOrEven))))
                        let x0 = X >> 5, y0 = Y >> 5, fx = X & 31, fy = Y & 31
                        let weights = ((32 - fy) * (32 - fx) * 32, (32 - fy) * fx * 32, fy * (32 - fx) * 32, fy * fx * 32)
                        let base = (v * width + u) * 3
                        for c in 0..<3 {
                            func sample(_ px: Int, _ py: Int) -> Int {
                                var px = px, py = py
                                if px < 0 || py < 0 || px >= sw || py >= sh {
                                    guard border == .replicate else { return 0 }
                                    px = min(max(px, 0), sw - 1)
                                    py = min(max(py, 0), sh - 1)
                                }
                                return Int(src[(py * sw + px) * 3 + c])
                            }
                            let sum = weights.0 * sample(x0, y0) + weights.1 * sample(x0 + 1, y0)
                                + weights.2 * sample(x0, y0 + 1) + weights.3 * sample(x0 + 1, y0 + 1)
                            dst[base + c] = UInt8(min(max((sum + (1 << 14)) >> 15, 0), 255))
                        }
                    }
                }
            }
        }
        return RGBImage(width: width, height: height, pixels: out)
    }

    /// uint8 → [-1, 1] as MediaPipe maps it: float32(fma(u, float32(2/255), -1)).
    package static let minusOneToOne: [Float] = (0..<256).map { (-1 as Float).addingProduct(Float($0), Float(2.0 / 255.0)) }
    /// uint8 → [0, 1] as MediaPipe maps it: float32(u · float32(1/255)).
    package static let zeroToOne: [Float] = (0..<256).map { Float($0) * Float(1.0 / 255.0) }

    /// The image's values through `table`, NHWC.
    package static func tensor(_ image: RGBImage, table: [Float]) -> [Float] {
        image.pixels.map { table[Int($0)] }
    }
}
