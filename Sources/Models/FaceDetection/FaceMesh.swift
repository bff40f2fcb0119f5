import Foundation
import Formats

/// MediaPipe's face mesh (`face_landmark.tflite`, 468 points, no iris refinement): a 192 × 192 RGB
/// crop in [0, 1] around a detected face to 468 (x, y, z) landmarks in crop pixels and a
/// face-presence logit.
package final class FaceMesh: Sendable {
    package static let inputSize = 192
    package static let landmarkCount = 468

    let graph: TFLiteGraph
    /// Positions of the landmark and face-flag tensors among the graph's outputs.
    let landmarkOutput: Int, flagOutput: Int

    package init(model: TFLiteModel) throws(ModelError) {
        let graph = try TFLiteGraph(model: model)
        let n = Self.inputSize
        guard graph.shapes[graph.input] == [1, n, n, 3] else {
            throw .shapeMismatch(tensor: "input", expected: [1, n, n, 3], found: graph.shapes[graph.input])
        }
        let shapes = graph.outputs.map { graph.shapes[$0] }
        self.graph = graph
        guard let landmarks = shapes.firstIndex(of: [1, 1, 1, 3 * Self.landmarkCount]), let flag = shapes.firstIndex(of: [1, 1, 1, 1]) else {
            throw .shapeMismatch(tensor: "outputs", expected: [1, 1, 1, 3 * Self.landmarkCount, 1, 1, 1, 1], found: shapes.flatMap { $0 })
        }
        landmarkOutput = landmarks
        flagOutput = flag
    }

    package convenience init(path: String) throws(ModelError) {
        let model: TFLiteModel
        do { model = try TFLiteModel(path: path) } catch { throw .format(error) }
        try self.init(model: model)
    }

    /// f32 weights held plus the largest activation pair a run allocates.
    package var residentBytes: Int { graph.weightBytes + 2 * 4 * graph.largestActivation }

    /// Raw outputs for one crop tensor (1, 192, 192, 3): 468 × (x, y, z) in crop pixels, and the
    /// face-presence logit.
    package func run(_ input: [Float], threads: Int) throws(ModelError) -> (landmarks: [Float], faceLogit: Float) {
        let outputs = try graph.run(input, threads: threads)
        return (outputs[landmarkOutput], outputs[flagOutput][0])
    }
}

/// The rotated, normalized rectangle the face mesh looks at, and the mapping of its landmarks back
/// to the image, as MediaPipe's face landmark graph (`face_landmark_front_cpu.pbtxt`, v0.10.21)
/// computes them: DetectionsToRectsCalculator (box centre, rotation from the eye keypoints),
/// RectTransformationCalculator (square on the long side, scaled 1.5) and
/// LandmarkProjectionCalculator. Float32 arithmetic, as there.
package struct FaceRegion: Sendable, Equatable {
    /// Centre and size normalized to the image; rotation in radians.
    package var xCenter: Float, yCenter: Float, width: Float, height: Float, rotation: Float

    package init(xCenter: Float, yCenter: Float, width: Float, height: Float, rotation: Float) {
        self.xCenter = xCenter
        self.yCenter = yCenter
        self.width = width
        self.height = height
        self.rotation = rotation
    }

    /// The region of `detection` (normalized to a `width` × `height` image).
    package init(detection d: FaceDetection, imageWidth: Int, imageHeight: Int) {
        let w = Float(imageWidth), h = Float(imageHeight)
        let x0 = d.keypoints[0].x * w, y0 = d.keypoints[0].y * h
        let x1 = d.keypoints[1].x * w, y1 = d.keypoints[1].y * h
        let angle = 0 - atan2(-(y1 - y0), x1 - x0)
        let twoPi = 2 * Float.pi
        rotation = angle - twoPi * ((angle + Float.pi) / twoPi).rounded(.down)
        xCenter = d.xmin + d.width / 2
        yCenter = d.ymin + d.height / 2
        let side = max(d.width * w, d.height * h)
        width = side / w * 1.5
        height = side / h * 1.5
    }

    /// Crop landmarks (x, y, z in pixels of a `size` crop) in image coordinates: x, y normalized
    /// to the image, z in the unit of x.
    package func project(_ raw: [Float], size: Int) -> [(x: Float, y: Float, z: Float)] {
        let s = Float(size), c = cos(rotation), sn = sin(rotation)
        return stride(from: 0, to: raw.count - 2, by: 3).map { i in
            let dx = raw[i] / s - 0.5, dy = raw[i + 1] / s - 0.5
            return (x: (c * dx - sn * dy) * width + xCenter, y: (sn * dx + c * dy) * height + yCenter, z: raw[i + 2] / s * width)
        }
    }
}
