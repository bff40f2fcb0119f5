/// Bilinear resize of 8-bit images the way OpenCV's `cv::resize(..., INTER_LINEAR)` computes it
/// for `CV_8U` (opencv/modules/imgproc/src/resize.cpp, 4.x): half-pixel centres, no antialiasing,
/// and fixed-point weights, so that text detectors trained and tested behind OpenCV see the same
/// bytes (RapidOCR's det, cls and rec inputs).
///
/// - Horizontal pass: source x = (dx + 0.5) · (1 / (dw / sw)) - 0.5 in float, weights
///   round((1 - f) · 2048) and round(f · 2048) as Int16, a 2048-scaled Int32 per channel;
///   positions left of 0 or right of the last pixel clamp to the edge with weight 2048.
/// - Vertical pass: the same weights over rows (rows clamped, weights not). OpenCV's SIMD body
///   (`VResizeLinearVec_32s8u`) computes ((S0 >> 4) · b0 >> 16) + ((S1 >> 4) · b1 >> 16), then
///   (· + 2) >> 2; the scalar tail computes (S0 · b0 + S1 · b1 + 2^21) >> 22. Which bytes of a row
///   take which path follows OpenCV's loop structure for 16-byte vectors (its x86 baseline).
package enum FixedPointLinearResize {
    static let one: Int32 = 2048

    /// Per destination coordinate: the two source indices and their Int16-valued weights.
    struct Taps {
        var first: [Int] = []
        var second: [Int] = []
        var w0: [Int32] = []
        var w1: [Int32] = []
    }

    static func taps(source: Int, destination: Int, clampWeights: Bool) -> Taps {
        let scale = 1.0 / (Double(destination) / Double(source))
        var taps = Taps()
        for d in 0..<destination {
            var f = Float((Double(d) + 0.5) * scale - 0.5)
            var s = Int(f.rounded(.down))
            f -= Float(s)
            if clampWeights {
                if s < 0 { f = 0; s = 0 }
                if s >= source - 1 { f = 0; s = source - 1 }
            }
            taps.first.append(min(max(s, 0), source - 1))
            taps.second.append(min(max(s + 1, 0), source - 1))
            taps.w0.append(Int32(((1 - f) * Float(one)).rounded(.toNearestOrEven)))
            taps.w1.append(Int32((f * Float(one)).rounded(.toNearestOrEven)))
        }
        return taps
    }

    /// `image` resized to `width` x `height`.
    package static func resize(_ image: RGBImage, width: Int, height: Int) -> RGBImage {
        precondition(width > 0 && height > 0, "resize to \(width)x\(height)")
        let channels = 3, sw = image.width, rowBytes = width * channels
        let xs = taps(source: sw, destination: width, clampWeights: true)
        let ys = taps(source: image.height, destination: height, clampWeights: false)
        var out = [UInt8](repeating: 0, count: rowBytes * height)
        var cache: [Int: [Int32]] = [:]
        func horizontal(_ row: Int) -> [Int32] {
            if let hit = cache[row] { return hit }
            var line = [Int32](repeating: 0, count: rowBytes)
            image.pixels.withUnsafeBufferPointer { px in
                let base = row * sw * channels
                for dx in 0..<width {
                    let a = base + xs.first[dx] * channels, b = base + xs.second[dx] * channels
                    for c in 0..<channels {
                        line[dx * channels + c] = Int32(px[a + c]) * xs.w0[dx] + Int32(px[b + c]) * xs.w1[dx]
                    }
                }
            }
            if cache.count > 4 { cache.removeAll(keepingCapacity: true) }
            cache[row] = line
            return line
        }
        // Bytes [0, vectorEnd) of a row take the SIMD formula, the rest the scalar one.
        var vectorEnd = 0
        while vectorEnd <= rowBytes - 16 { vectorEnd += 16 }
        while vectorEnd < rowBytes - 8 { vectorEnd += 8 }
        for dy in 0..<height {
            let s0 = horizontal(ys.first[dy]), s1 = horizontal(ys.second[dy])
            let b0 = ys.w0[dy], b1 = ys.w1[dy]
            let base = dy * rowBytes
            for x in 0..<rowBytes {
                let value: Int32
                if x < vectorEnd {
                    let h0 = (Int32(Int16(clamping: s0[x] >> 4)) * b0) >> 16
                    let h1 = (Int32(Int16(clamping: s1[x] >> 4)) * b1) >> 16
                    value = (h0 + h1 + 2) >> 2
                } else {
                    value = (s0[x] * b0 + s1[x] * b1 + (1 << 21)) >> 22
                }
                out[base + x] = UInt8(clamping: value)
            }
        }
        return RGBImage(width: width, height: height, pixels: out)
    }
}
