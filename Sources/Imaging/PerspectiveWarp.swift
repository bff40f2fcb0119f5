/// Cuts a quadrilateral out of an image and straightens it to a rectangle, as OpenCV's
/// `getPerspectiveTransform` + `warpPerspective(INTER_CUBIC, BORDER_REPLICATE)` do for 8-bit
/// images (opencv/modules/imgproc/src/imgwarp.cpp, 4.x): each output pixel maps back through the
/// inverse homography to a source position quantized to 1/32 pixel, then a 4 x 4 bicubic
/// (a = -0.75) with 15-bit fixed-point weights whose 16 products are forced to sum to 32768.
package enum PerspectiveWarp {
    /// The 3 x 3 homography (row-major, m[8] = 1) taking `from[i]` to `to[i]` for four points.
    package static func transform(from: [SIMD2<Double>], to: [SIMD2<Double>]) -> [Double]? {
        precondition(from.count == 4 && to.count == 4, "four point pairs")
        // Unknowns m0...m7: u = (m0 x + m1 y + m2) / (m6 x + m7 y + 1), v likewise with m3...m5.
        var a = [[Double]](repeating: [Double](repeating: 0, count: 9), count: 8)
        for i in 0..<4 {
            let (x, y, u, v) = (from[i].x, from[i].y, to[i].x, to[i].y)
            a[i] = [x, y, 1, 0, 0, 0, -x * u, -y * u, u]
            a[i + 4] = [0, 0, 0, x, y, 1, -x * v, -y * v, v]
        }
        guard let solution = solve(&a) else { return nil }
        return solution + [1]
    }

    /// Gaussian elimination with partial pivoting on an n x (n+1) augmented matrix.
    static func solve(_ a: inout [[Double]]) -> [Double]? {
        let n = a.count
        for col in 0..<n {
            var pivot = col
            for row in (col + 1)..<n where abs(a[row][col]) > abs(a[pivot][col]) { pivot = row }
            guard abs(a[pivot][col]) > 1e-12 else { return nil }
            a.swapAt(col, pivot)
            for row in (col + 1)..<n {
                let f = a[row][col] / a[col][col]
                if f == 0 { continue }
                for k in col...n { a[row][k] -= f * a[col][k] }
            }
        }
        var x = [Double](repeating: 0, count: n)
        for row in (0..<n).reversed() {
            var s = a[row][n]
            for k in (row + 1)..<n { s -= a[row][k] * x[k] }
            x[row] = s / a[row][row]
        }
        return x
    }

    /// The 32 x 32 tables of 4 x 4 Int32 weights (row-major over (ky, kx)) for each 1/32 sub-pixel position.
    static let weights: [[Int32]] = {
        func cubic(_ x: Float) -> [Float] {
            let a: Float = -0.75
            let c0 = ((a * (x + 1) - 5 * a) * (x + 1) + 8 * a) * (x + 1) - 4 * a
            let c1 = ((a + 2) * x - (a + 3)) * x * x + 1
            let c2 = ((a + 2) * (1 - x) - (a + 3)) * (1 - x) * (1 - x) + 1
            return [c0, c1, c2, 1 - c0 - c1 - c2]
        }
        let table = (0..<32).map { cubic(Float($0) / 32) }
        var all: [[Int32]] = []
        for i in 0..<32 {
            for j in 0..<32 {
                var w = [Int32](repeating: 0, count: 16), sum: Int32 = 0
                for ky in 0..<4 {
                    for kx in 0..<4 {
                        let v = table[i][ky] * table[j][kx]
                        w[ky * 4 + kx] = Int32((v * 32768).rounded(.toNearestOrEven))
                        sum += w[ky * 4 + kx]
                    }
                }
                if sum != 32768 {
                    // Put the rounding error on the smallest (or largest) of the central four.
                    var (small, large) = (5, 5)
                    for ky in 1...2 {
                        for kx in 1...2 {
                            let k = ky * 4 + kx
                            if w[k] < w[small] { small = k } else if w[k] > w[large] { large = k }
                        }
                    }
                    let diff = sum - 32768
                    if diff < 0 { w[large] -= diff } else { w[small] -= diff }
                }
                all.append(w)
            }
        }
        return all
    }()

    /// The `width` x `height` image whose corners (0,0), (w,0), (w,h), (0,h) come from `corners`
    /// (top-left, top-right, bottom-right, bottom-left in `image`), nil for a degenerate quad.
    package static func crop(_ image: RGBImage, corners: [SIMD2<Double>], width: Int, height: Int) -> RGBImage? {
        guard width > 0, height > 0 else { return nil }
        let target: [SIMD2<Double>] = [.init(0, 0), .init(Double(width), 0), .init(Double(width), Double(height)), .init(0, Double(height))]
        // warpPerspective inverts the forward map; solving the backward map directly is the same matrix.
        guard let m = transform(from: target, to: corners) else { return nil }
        let sw = image.width, sh = image.height
        var out = [UInt8](repeating: 0, count: width * height * 3)
        image.pixels.withUnsafeBufferPointer { px in
            for y in 0..<height {
                for x in 0..<width {
                    let (fx, fy) = (Double(x), Double(y))
                    var w = m[6] * fx + m[7] * fy + m[8]
                    w = w != 0 ? 32 / w : 0
                    let sx = clampToInt((m[0] * fx + m[1] * fy + m[2]) * w)
                    let sy = clampToInt((m[3] * fx + m[4] * fy + m[5]) * w)
                    let ix = sx >> 5, iy = sy >> 5
                    let table = weights[(sy & 31) * 32 + (sx & 31)]
                    for c in 0..<3 {
                        var sum: Int32 = 0
                        for ky in 0..<4 {
                            let row = min(max(iy - 1 + ky, 0), sh - 1) * sw
                            for kx in 0..<4 {
                                let col = min(max(ix - 1 + kx, 0), sw - 1)
                                sum += Int32(px[(row + col) * 3 + c]) * table[ky * 4 + kx]
                            }
                        }
                        out[(y * width + x) * 3 + c] = UInt8(clamping: (sum + (1 << 14)) >> 15)
                    }
                }
            }
        }
        return RGBImage(width: width, height: height, pixels: out)
    }

    /// OpenCV's saturate_cast<int>(double): round half to even, clamped to the Int32 range.
    private static func clampToInt(_ v: Double) -> Int {
        guard v.isFinite else { return 0 }
        return Int(min(max(v, Double(Int32.min)), Double(Int32.max)).rounded(.toNearestOrEven))
    }
}
