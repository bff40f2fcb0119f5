import Foundation

/// One face: score in 0...1, box and six keypoints, all normalized to the image (x right, y down).
/// Keypoints: right eye, left eye, nose tip, mouth centre, right ear tragion, left ear tragion (the
/// subject's right and left).
package struct FaceDetection: Sendable, Equatable {
    package var score: Float
    package var xmin: Float, ymin: Float, width: Float, height: Float
    /// Six (x, y) pairs.
    package var keypoints: [(x: Float, y: Float)]

    package init(score: Float, xmin: Float, ymin: Float, width: Float, height: Float, keypoints: [(x: Float, y: Float)]) {
        self.score = score
        self.xmin = xmin
        self.ymin = ymin
        self.width = width
        self.height = height
        self.keypoints = keypoints
    }

    package static func == (a: FaceDetection, b: FaceDetection) -> Bool {
        a.score == b.score && a.xmin == b.xmin && a.ymin == b.ymin && a.width == b.width && a.height == b.height
            && a.keypoints.elementsEqual(b.keypoints) { $0.x == $1.x && $0.y == $1.y }
    }
}

/// MediaPipe's face detection post-processing for BlazeFace short range, as the graph
/// `face_detection_short_range_cpu.pbtxt` (v0.10.21) configures its calculators:
/// SsdAnchorsCalculator (anchors), TensorsToDetectionsCalculator (decoding, sigmoid scores with
/// logits clipped to ±100, threshold), NonMaxSuppressionCalculator (weighted, IoU 0.3) and
/// DetectionProjectionCalculator (letterbox back to the image). Arithmetic in float32, as there.
package enum FaceDetectionDecoder {
    package static let scoreThreshold: Float = 0.5
    package static let suppressionThreshold: Float = 0.3
    static let scale: Float = 128
    static let keypointCount = 6

    /// Anchor centres (x, y), 896 of them: a 16 × 16 grid with 2 anchors per cell (stride 8),
    /// then an 8 × 8 grid with 6 per cell (the three stride-16 layers merged), row by row; every
    /// anchor is centred on its cell ((x + 0.5) / n, (y + 0.5) / n) with size 1 (fixed_anchor_size).
    package static let anchors: [(x: Float, y: Float)] = {
        var anchors: [(x: Float, y: Float)] = []
        for (grid, perCell) in [(16, 2), (8, 6)] {
            for y in 0..<grid {
                for x in 0..<grid {
                    let centre = (x: (Float(x) + 0.5) / Float(grid), y: (Float(y) + 0.5) / Float(grid))
                    anchors += Array(repeating: centre, count: perCell)
                }
            }
        }
        return anchors
    }()

    /// Faces in tensor coordinates (normalized to the 128 × 128 tensor), best first.
    package static func detections(regressors r: [Float], logits: [Float]) -> [FaceDetection] {
        precondition(r.count == anchors.count * 16 && logits.count == anchors.count, "BlazeFace output sizes")
        var candidates: [FaceDetection] = []
        for (i, anchor) in anchors.enumerated() {
            let logit = min(max(logits[i], -100), 100)
            let score = 1 / (1 + exp(-logit))
            guard score >= scoreThreshold else { continue }
            let v = r[(i * 16)..<(i * 16 + 16)].map { $0 }
            let xc = v[0] / scale + anchor.x, yc = v[1] / scale + anchor.y
            let w = v[2] / scale, h = v[3] / scale
            let xmin = xc - w / 2, ymin = yc - h / 2, xmax = xc + w / 2, ymax = yc + h / 2
            guard xmax - xmin >= 0, ymax - ymin >= 0 else { continue }
            let keypoints = (0..<keypointCount).map { k in (x: v[4 + 2 * k] / scale + anchor.x, y: v[5 + 2 * k] / scale + anchor.y) }
            candidates.append(FaceDetection(score: score, xmin: xmin, ymin: ymin, width: xmax - xmin, height: ymax - ymin,
                                            keypoints: keypoints))
        }
        return weightedSuppression(candidates)
    }

    /// Weighted non-maximum suppression: the best remaining detection absorbs every remaining one
    /// (itself included) whose IoU with it exceeds the threshold; the merged box and keypoints are
    /// the score-weighted means of the absorbed ones, with the best one's score.
    static func weightedSuppression(_ detections: [FaceDetection]) -> [FaceDetection] {
        var remaining = detections.indices.sorted { detections[$0].score > detections[$1].score }
        var output: [FaceDetection] = []
        while let first = remaining.first {
            let best = detections[first]
            var candidates: [Int] = [], rest: [Int] = []
            for i in remaining {
                if iou(detections[i], best) > suppressionThreshold { candidates.append(i) } else { rest.append(i) }
            }
            var merged = best
            if !candidates.isEmpty {
                var total: Float = 0, xmin: Float = 0, ymin: Float = 0, xmax: Float = 0, ymax: Float = 0
                var keypoints = [(x: Float, y: Float)](repeating: (0, 0), count: best.keypoints.count)
                for i in candidates {
                    let d = detections[i], s = d.score
                    total += s
                    xmin += d.xmin * s
                    ymin += d.ymin * s
                    xmax += (d.xmin + d.width) * s
                    ymax += (d.ymin + d.height) * s
                    for k in keypoints.indices {
                        keypoints[k].x += d.keypoints[k].x * s
                        keypoints[k].y += d.keypoints[k].y * s
                    }
                }
                merged.xmin = xmin / total
                merged.ymin = ymin / total
                merged.width = (xmax - xmin) / total
                merged.height = (ymax - ymin) / total
                merged.keypoints = keypoints.map { (x: $0.x / total, y: $0.y / total) }
            }
            output.append(merged)
            if rest.count == remaining.count { break }
            remaining = rest
        }
        return output
    }

    /// Intersection over union of two boxes; 0 when they do not intersect.
    static func iou(_ a: FaceDetection, _ b: FaceDetection) -> Float {
        let x0 = max(a.xmin, b.xmin), y0 = max(a.ymin, b.ymin)
        let x1 = min(a.xmin + a.width, b.xmin + b.width), y1 = min(a.ymin + a.height, b.ymin + b.height)
        guard x1 >= x0, y1 >= y0 else { return 0 }
        let intersection = (x1 - x0) * (y1 - y0)
        let union = a.width * a.height + b.width * b.height - intersection
        return union > 0 ? intersection / union : 0
    }

    /// Maps a detection on the letterboxed square tensor back to an image of `width` × `height`:
    /// x_img = x · S/W + (W/2 − S/2)/W (and the same for y), S the longer side.
    package static func project(_ d: FaceDetection, width: Int, height: Int) -> FaceDetection {
        let side = Float(max(width, height)), w = Float(width), h = Float(height)
        let sx = side / w, sy = side / h
        let ox = (w / 2 - side / 2) / w, oy = (h / 2 - side / 2) / h
        var p = d
        let x0 = d.xmin * sx + ox, x1 = (d.xmin + d.width) * sx + ox
        let y0 = d.ymin * sy + oy, y1 = (d.ymin + d.height) * sy + oy
        p.xmin = min(x0, x1)
        p.ymin = min(y0, y1)
        p.width = max(x0, x1) - p.xmin
        p.height = max(y0, y1) - p.ymin
        p.keypoints = d.keypoints.map { (x: $0.x * sx + ox, y: $0.y * sy + oy) }
        return p
    }
}
