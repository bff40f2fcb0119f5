/// Convex hulls and minimum-area rotated rectangles of point sets (text boxes from detector
/// masks): what OpenCV's `convexHull`, `minAreaRect` and `boxPoints` give, in Double.
package enum ConvexGeometry {
    package typealias Point = SIMD2<Double>

    /// Counter-clockwise convex hull (Andrew's monotone chain), collinear points dropped.
    package static func hull(_ points: [Point]) -> [Point] {
        let sorted = points.sorted { $0.x < $1.x || ($0.x == $1.x && $0.y < $1.y) }
        guard sorted.count > 2 else { return sorted }
        func cross(_ o: Point, _ a: Point, _ b: Point) -> Double { (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x) }
        var lower: [Point] = [], upper: [Point] = []
        for p in sorted {
            while lower.count >= 2, cross(lower[lower.count - 2], lower[lower.count - 1], p) <= 0 { lower.removeLast() }
            lower.append(p)
        }
        for p in sorted.reversed() {
            while upper.count >= 2, cross(upper[upper.count - 2], upper[upper.count - 1], p) <= 0 { upper.removeLast() }
            upper.append(p)
        }
        return Array(lower.dropLast() + upper.dropLast())
    }

    /// A rotated rectangle: its four corners (in order around it) and side lengths.
    package struct Rectangle: Sendable, Equatable {
        package var corners: [Point]
        package var width: Double
        package var height: Double
        package var shortSide: Double { min(width, height) }
    }

    /// The smallest-area rectangle enclosing `points` (rotating calipers over the hull: one side
    /// of the optimum lies on a hull edge). Degenerate sets give a zero-height rectangle.
    package static func minAreaRect(_ points: [Point]) -> Rectangle {
        let h = hull(points)
        guard h.count > 1 else {
            let p = h.first ?? .zero
            return Rectangle(corners: [p, p, p, p], width: 0, height: 0)
        }
        var best: Rectangle?
        var bestArea = Double.infinity
        for i in h.indices {
            let edge = h[(i + 1) % h.count] - h[i]
            let length = (edge * edge).sum().squareRoot()
            guard length > 0 else { continue }
            let u = edge / length, v = Point(-u.y, u.x)
            var (minU, maxU, minV, maxV) = (Double.infinity, -Double.infinity, Double.infinity, -Double.infinity)
            for p in h {
                let a = (p * u).sum(), b = (p * v).sum()
                minU = min(minU, a); maxU = max(maxU, a); minV = min(minV, b); maxV = max(maxV, b)
            }
            let area = (maxU - minU) * (maxV - minV)
            if area < bestArea - 1e-9 {
                bestArea = area
                best = Rectangle(corners: [u * minU + v * minV, u * maxU + v * minV, u * maxU + v * maxV, u * minU + v * maxV],
                                 width: maxU - minU, height: maxV - minV)
            }
        }
        return best ?? Rectangle(corners: [h[0], h[0], h[0], h[0]], width: 0, height: 0)
    }

    /// Corners ordered top-left, top-right, bottom-right, bottom-left the way PaddleOCR's
    /// `get_mini_boxes` does: sort by x, then the left pair and the right pair each by y.
    package static func orderedCorners(_ corners: [Point]) -> [Point] {
        let byX = corners.enumerated().sorted { $0.element.x < $1.element.x || ($0.element.x == $1.element.x && $0.offset < $1.offset) }.map(\.element)
        let (topLeft, bottomLeft) = byX[1].y > byX[0].y ? (byX[0], byX[1]) : (byX[1], byX[0])
        let (topRight, bottomRight) = byX[3].y > byX[2].y ? (byX[2], byX[3]) : (byX[3], byX[2])
        return [topLeft, topRight, bottomRight, bottomLeft]
    }

    /// Shoelace area and perimeter of a polygon (shapely's `Polygon.area` and `.length`).
    package static func areaAndPerimeter(_ polygon: [Point]) -> (area: Double, perimeter: Double) {
        var twice = 0.0, perimeter = 0.0
        for i in polygon.indices {
            let a = polygon[i], b = polygon[(i + 1) % polygon.count]
            twice += a.x * b.y - b.x * a.y
            perimeter += ((b - a) * (b - a)).sum().squareRoot()
        }
        return (abs(twice) / 2, perimeter)
    }
}
