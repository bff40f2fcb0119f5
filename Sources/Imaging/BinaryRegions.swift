/// The contours of a binary mask as OpenCV's `findContours(RETR_LIST)` lists them, reduced to
/// what a rotated bounding box needs: for each contour, points with the same convex hull.
///
/// Every 8-connected region of set pixels has one outer border; every 4-connected region of
/// clear pixels that does not reach the image edge (a hole) has one hole border, made of the set
/// pixels 4-adjacent to it (Suzuki & Abe 1985, the algorithm behind `findContours`). The hull of
/// a border equals the hull of each row's leftmost and rightmost border pixel, which is what is
/// returned (pixel centres at integer coordinates).
package enum BinaryRegions {
    /// The contours of `mask` (`width` x `height`, nonzero = set), outer borders first in raster
    /// order of their first pixel, then holes.
    package static func contours(_ mask: [UInt8], width: Int, height: Int) -> [[ConvexGeometry.Point]] {
        precondition(mask.count == width * height, "mask of \(mask.count) bytes for \(width)x\(height)")
        var label = [Int32](repeating: 0, count: mask.count)
        var result: [[ConvexGeometry.Point]] = []
        var stack: [Int] = []
        // Per region, per row: leftmost and rightmost x.
        func extremes(_ rows: [Int: (Int, Int)]) -> [ConvexGeometry.Point] {
            rows.keys.sorted().flatMap { y -> [ConvexGeometry.Point] in
                let (a, b) = rows[y]!
                return a == b ? [.init(Double(a), Double(y))] : [.init(Double(a), Double(y)), .init(Double(b), Double(y))]
            }
        }
        func note(_ rows: inout [Int: (Int, Int)], _ x: Int, _ y: Int) {
            if let (a, b) = rows[y] { rows[y] = (min(a, x), max(b, x)) } else { rows[y] = (x, x) }
        }
        // Outer borders: 8-connected set regions.
        var next: Int32 = 1
        for start in mask.indices where mask[start] != 0 && label[start] == 0 {
            var rows: [Int: (Int, Int)] = [:]
            label[start] = next
            stack.append(start)
            while let p = stack.popLast() {
                let x = p % width, y = p / width
                note(&rows, x, y)
                for dy in -1...1 {
                    let ny = y + dy
                    guard ny >= 0, ny < height else { continue }
                    for dx in -1...1 {
                        let nx = x + dx
                        guard nx >= 0, nx < width else { continue }
                        let q = ny * width + nx
                        if mask[q] != 0, label[q] == 0 { label[q] = next; stack.append(q) }
                    }
                }
            }
            next += 1
            result.append(extremes(rows))
        }
        // Holes: 4-connected clear regions that never touch the edge.
        for start in mask.indices where mask[start] == 0 && label[start] == 0 {
            var rows: [Int: (Int, Int)] = [:]
            var touchesEdge = false
            label[start] = -1
            stack.append(start)
            while let p = stack.popLast() {
                let x = p % width, y = p / width
                if x == 0 || y == 0 || x == width - 1 || y == height - 1 { touchesEdge = true }
                for k in 0..<4 {
                    let nx = x + (k == 0 ? -1 : k == 1 ? 1 : 0), ny = y + (k == 2 ? -1 : k == 3 ? 1 : 0)
                    guard nx >= 0, nx < width, ny >= 0, ny < height else { continue }
                    let q = ny * width + nx
                    if mask[q] != 0 {
                        note(&rows, nx, ny)
                    } else if label[q] == 0 {
                        label[q] = -1
                        stack.append(q)
                    }
                }
            }
            if !touchesEdge, !rows.isEmpty { result.append(extremes(rows)) }
        }
        return result
    }

    /// OpenCV's `dilate` with a 2 x 2 kernel of ones at the default anchor (1, 1):
    /// out(y, x) = max over rows y-1...y and columns x-1...x.
    package static func dilate2x2(_ mask: [UInt8], width: Int, height: Int) -> [UInt8] {
        var out = mask
        for y in 0..<height {
            for x in 0..<width {
                let p = y * width + x
                if mask[p] != 0 { continue }
                if (x > 0 && mask[p - 1] != 0) || (y > 0 && mask[p - width] != 0) || (x > 0 && y > 0 && mask[p - width - 1] != 0) {
                    out[p] = 1
                }
            }
        }
        return out
    }
}
