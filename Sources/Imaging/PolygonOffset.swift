import Foundation

/// Outward offset of a closed polygon with round joins on an integer grid, as Angus Johnson's
/// Clipper 6 (`ClipperOffset`, jtRound / etClosedPolygon, arc tolerance 0.25; the library
/// behind pyclipper) computes it: DB text detectors grow their shrunken boxes with it ("unclip").
///
/// Vertices are integers; each vertex contributes the arc from the previous edge's normal to
/// the next one's in steps of 2π / (π / acos(1 - 0.25 / delta)), every point rounded half away
/// from zero. Clipper then unions the result with itself, which for the convex boxes offset
/// here changes no point of the outline's hull, so the points are returned as generated.
package enum PolygonOffset {
    package typealias IntPoint = SIMD2<Int>

    package static func round(_ polygon: [IntPoint], delta: Double) -> [IntPoint] {
        // Consecutive duplicates are dropped (Clipper's AddPath).
        var path: [IntPoint] = []
        for p in polygon where path.last != p { path.append(p) }
        while path.count > 1, path.first == path.last { path.removeLast() }
        guard path.count >= 3, delta > 0 else { return path }
        // Clipper offsets positively oriented paths (Area >= 0 in its convention); reverse otherwise.
        var twice = 0.0
        for i in path.indices {
            let j = (i + path.count - 1) % path.count
            twice += (Double(path[j].x) + Double(path[i].x)) * (Double(path[j].y) - Double(path[i].y))
        }
        if -twice * 0.5 < 0 { path.reverse() }

        let tolerance = min(0.25, abs(delta) * 0.25)
        var steps = Double.pi / acos(1 - tolerance / abs(delta))
        if steps > abs(delta) * Double.pi { steps = abs(delta) * Double.pi }
        let sinStep = sin(2 * Double.pi / steps), cosStep = cos(2 * Double.pi / steps)
        let stepsPerRadian = steps / (2 * Double.pi)

        let count = path.count
        let normals: [SIMD2<Double>] = (0..<count).map { j in
            let a = path[j], b = path[(j + 1) % count]
            let dx = Double(b.x - a.x), dy = Double(b.y - a.y)
            guard dx != 0 || dy != 0 else { return .zero }
            let f = 1 / (dx * dx + dy * dy).squareRoot()
            return SIMD2(dy * f, -dx * f)
        }
        func rounded(_ v: Double) -> Int { v < 0 ? Int(v - 0.5) : Int(v + 0.5) }
        func offset(_ j: Int, _ normal: SIMD2<Double>) -> IntPoint {
            IntPoint(rounded(Double(path[j].x) + normal.x * delta), rounded(Double(path[j].y) + normal.y * delta))
        }
        var out: [IntPoint] = []
        var k = count - 1
        for j in 0..<count {
            let nk = normals[k], nj = normals[j]
            var sinA = nk.x * nj.y - nj.x * nk.y
            let cosA = nk.x * nj.x + nk.y * nj.y
            if abs(sinA * delta) < 1, cosA > 0 {
                out.append(offset(j, nk))
            } else {
                sinA = min(max(sinA, -1), 1)
                if sinA * delta < 0 {
                    out.append(offset(j, nk))
                    out.append(path[j])
                    out.append(offset(j, nj))
                } else {
                    let angle = atan2(sinA, cosA)
                    let arcSteps = max(rounded(stepsPerRadian * abs(angle)), 1)
                    var x = nk.x, y = nk.y
                    for _ in 0..<arcSteps {
                        out.append(offset(j, SIMD2(x, y)))
                        let x2 = x
                        x = x * cosStep - sinStep * y
                        y = x2 * sinStep + y * cosStep
                    }
                    out.append(offset(j, nj))
                }
            }
            k = j
        }
        return out
    }
}
