import Imaging
import Models

/// PP-OCR's text detector (DB, differentiable binarization) with RapidOCR 1.4.4's pre- and
/// post-processing: the image is scaled so its shorter side is about 736 (each side a multiple
/// of 32), the network gives a per-pixel text probability, and the boxes are the rotated
/// rectangles around the thresholded regions, grown back ("unclipped") by area · 1.6 / perimeter.
/// Steps and constants: golden/vision2/README.md, "OCR: RapidOCR pipeline (exact)", steps 4–9.
package struct TextDetection {
    static let limitSide = 736
    static let threshold: Float = 0.3
    static let boxThreshold = 0.5
    static let unclipRatio = 1.6
    static let maxCandidates = 1000
    static let minSize = 3.0

    let graph: ONNXGraph

    /// float32((float64(float32(u) · float32(1/255)) - 0.5) / 0.5): NumPy's promotions in RapidOCR.
    package static let valueMap: [Float] = (0..<256).map { u in
        let scaled = Float(u) * Float(1.0 / 255.0)
        return Float((Double(scaled) - 0.5) / 0.5)
    }

    /// The det input size for an image of `width` x `height` (step 4).
    static func inputSize(width: Int, height: Int) -> (width: Int, height: Int) {
        let shorter = min(width, height)
        let ratio = shorter < limitSide ? Double(limitSide) / Double(shorter) : 1
        func snap(_ side: Int) -> Int {
            let scaled = Int(Double(side) * ratio)
            return max(32, Int((Double(scaled) / 32).rounded(.toNearestOrEven)) * 32)
        }
        return (snap(width), snap(height))
    }

    /// Runs the network on `image` resized for it: the (height, width) probability map.
    func probabilities(_ image: RGBImage, threads: Int) throws(ModelError) -> (map: [Float], width: Int, height: Int) {
        let size = Self.inputSize(width: image.width, height: image.height)
        let resized = FixedPointLinearResize.resize(image, width: size.width, height: size.height)
        let input = TextDetection.planarBGR(resized, valueMap: Self.valueMap)
        let outputs = try graph.run([graph.inputNames[0]: GraphTensor(shape: [1, 3, size.height, size.width], floats: input)], threads: threads)
        guard let output = outputs[graph.outputNames[0]], let map = output.floats, output.count == size.width * size.height else {
            throw .invalidGraphValue(node: graph.outputNames[0], detail: "det output is not one \(size.height)x\(size.width) map")
        }
        return (map, size.width, size.height)
    }

    /// An RGB image as NCHW planes in B, G, R order (the channel order PP-OCR was trained on).
    static func planarBGR(_ image: RGBImage, valueMap: [Float]) -> [Float] {
        let plane = image.width * image.height
        var out = [Float](repeating: 0, count: 3 * plane)
        image.pixels.withUnsafeBufferPointer { px in
            for p in 0..<plane {
                out[p] = valueMap[Int(px[p * 3 + 2])]
                out[plane + p] = valueMap[Int(px[p * 3 + 1])]
                out[2 * plane + p] = valueMap[Int(px[p * 3])]
            }
        }
        return out
    }

    /// Step 7: boxes (tl, tr, br, bl) in the pixels of a `destWidth` x `destHeight` image.
    static func boxes(map: [Float], width: Int, height: Int, destWidth: Int, destHeight: Int) -> [[SIMD2<Double>]] {
        let bitmap = map.map { $0 > threshold ? UInt8(1) : 0 }
        let mask = BinaryRegions.dilate2x2(bitmap, width: width, height: height)
        var boxes: [[SIMD2<Double>]] = []
        for contour in BinaryRegions.contours(mask, width: width, height: height).prefix(maxCandidates) {
            let rect = ConvexGeometry.minAreaRect(contour)
            guard rect.shortSide >= minSize else { continue }
            let corners = ConvexGeometry.orderedCorners(rect.corners)
            let score = meanInside(map, width: width, height: height, polygon: corners)
            guard score >= boxThreshold else { continue }
            let (area, perimeter) = ConvexGeometry.areaAndPerimeter(corners)
            guard perimeter > 0 else { continue }
            let grown = PolygonOffset.round(corners.map { PolygonOffset.IntPoint(Int($0.x), Int($0.y)) }, delta: area * unclipRatio / perimeter)
            let unclipped = ConvexGeometry.minAreaRect(grown.map { SIMD2(Double($0.x), Double($0.y)) })
            guard unclipped.shortSide >= minSize + 2 else { continue }
            // Back to image pixels, in float32 as NumPy does it on cv2.boxPoints' output.
            boxes.append(ConvexGeometry.orderedCorners(unclipped.corners).map { p in
                let x = (Float(p.x) / Float(width) * Float(destWidth)).rounded(.toNearestOrEven)
                let y = (Float(p.y) / Float(height) * Float(destHeight)).rounded(.toNearestOrEven)
                return SIMD2(Double(min(max(x, 0), Float(destWidth))), Double(min(max(y, 0), Float(destHeight))))
            })
        }
        return boxes
    }

    /// Mean of `map` over the pixels of `polygon` with its corners truncated to integers
    /// (`box_score_fast`: cv2.fillPoly over the box's bounding window, then cv2.mean).
    static func meanInside(_ map: [Float], width: Int, height: Int, polygon: [SIMD2<Double>]) -> Double {
        let xs = polygon.map(\.x), ys = polygon.map(\.y)
        let x0 = min(max(Int(xs.min()!.rounded(.down)), 0), width - 1), x1 = min(max(Int(xs.max()!.rounded(.up)), 0), width - 1)
        let y0 = min(max(Int(ys.min()!.rounded(.down)), 0), height - 1), y1 = min(max(Int(ys.max()!.rounded(.up)), 0), height - 1)
        let corners = polygon.map { SIMD2(Double(Int($0.x - Double(x0))), Double(Int($0.y - Double(y0)))) }
        var sum = 0.0, count = 0
        for y in 0...(y1 - y0) {
            // The polygon's extent along this row: every edge crossing y.
            var low = Double.infinity, high = -Double.infinity
            let fy = Double(y)
            for i in corners.indices {
                let a = corners[i], b = corners[(i + 1) % corners.count]
                if (a.y <= fy && fy <= b.y) || (b.y <= fy && fy <= a.y) {
                    if a.y == b.y {
                        low = min(low, a.x, b.x); high = max(high, a.x, b.x)
                    } else {
                        let x = a.x + (fy - a.y) * (b.x - a.x) / (b.y - a.y)
                        low = min(low, x); high = max(high, x)
                    }
                }
            }
            guard low <= high else { continue }
            let from = max(Int(low.rounded()), 0), to = min(Int(high.rounded()), x1 - x0)
            guard from <= to else { continue }
            for x in from...to {
                sum += Double(map[(y0 + y) * width + x0 + x])
                count += 1
            }
        }
        return count > 0 ? sum / Double(count) : 0
    }

    /// Step 8: corners re-ordered (tl, tr, br, bl by x then y), clipped to the image, and boxes with a
    /// side of 3 pixels or less dropped.
    static func filtered(_ boxes: [[SIMD2<Double>]], width: Int, height: Int) -> [[SIMD2<Double>]] {
        // Stable sorts of two or four points (NumPy's argsort on so few elements keeps ties in order).
        func stable(_ points: [SIMD2<Double>], by key: (SIMD2<Double>) -> Double) -> [SIMD2<Double>] {
            points.indices.sorted { (key(points[$0]), $0) < (key(points[$1]), $1) }.map { points[$0] }
        }
        func clip(_ v: Double, _ limit: Int) -> Double {
            let clamped: Float = min(max(Float(v), 0), Float(limit - 1))
            return Double(Int(clamped))
        }
        func length(_ a: SIMD2<Double>, _ b: SIMD2<Double>) -> Int {
            let d = a - b
            return Int((d * d).sum().squareRoot())
        }
        var kept: [[SIMD2<Double>]] = []
        for box in boxes {
            let byX = stable(box) { $0.x }
            let left = stable([byX[0], byX[1]]) { $0.y }, right = stable([byX[2], byX[3]]) { $0.y }
            let ordered = [left[0], right[0], right[1], left[1]].map { SIMD2(clip($0.x, width), clip($0.y, height)) }
            if length(ordered[0], ordered[1]) > 3, length(ordered[0], ordered[3]) > 3 { kept.append(ordered) }
        }
        return kept
    }

    /// Step 9: top to bottom by the first corner, then neighbours less than 10 px apart vertically
    /// put left to right (RapidOCR's `sorted_boxes`).
    static func readingOrder(_ boxes: [[SIMD2<Double>]]) -> [[SIMD2<Double>]] {
        var sorted = boxes.enumerated().sorted {
            ($0.element[0].y, $0.element[0].x, $0.offset) < ($1.element[0].y, $1.element[0].x, $1.offset)
        }.map(\.element)
        guard sorted.count > 1 else { return sorted }
        for i in 0..<(sorted.count - 1) {
            var j = i
            while j >= 0 {
                if abs(sorted[j + 1][0].y - sorted[j][0].y) < 10, sorted[j + 1][0].x < sorted[j][0].x {
                    sorted.swapAt(j, j + 1)
                    j -= 1
                } else {
                    break
                }
            }
        }
        return sorted
    }
}
