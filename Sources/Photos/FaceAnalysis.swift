import Foundation
import Imaging
import Models

/// The face figures photo culling uses, for the photo's main face: the 468-point mesh (MediaPipe's
/// face mesh solution, `static_image_mode`, up to 4 faces, the largest kept), each eye's aspect
/// ratio from it, and the sharpness of the largest detected face box.
package struct FaceAnalysis: Sendable {
    /// Landmark triples (x, y normalized to the image; z in the unit of x) of the chosen face.
    package let landmarks: [(x: Float, y: Float, z: Float)]
    /// The detection the mesh was built from and its region.
    package let detectionIndex: Int
    package let region: FaceRegion
    /// sigmoid of the mesh's face-presence logit.
    package let presence: Float
    /// Eye aspect ratios (the image-left eye first: the subject's right in an unmirrored photo).
    package let eyeAspectRatios: (left: Double, right: Double)

    /// Points p1...p6 of each eye (mesh indices): EAR = (|p2 − p6| + |p3 − p5|) / (2 |p1 − p4|).
    package static let leftEye = [33, 160, 158, 133, 153, 144]
    package static let rightEye = [362, 385, 387, 263, 373, 380]
    /// Faces the mesh is run on, best detections first (`max_num_faces`).
    package static let maxFaces = 4

    /// The mesh of the largest face among the first `maxFaces` detections whose mesh says a face is
    /// present (presence ≥ 0.5), or nil when there is none.
    package static func analyze(_ image: RGBImage, detections: [FaceDetection], mesh: FaceMesh, threads: Int) throws(ModelError) -> FaceAnalysis? {
        let w = Float(image.width), h = Float(image.height)
        var best: (analysis: FaceAnalysis, span: Float)?
        for (index, detection) in detections.prefix(maxFaces).enumerated() {
            let region = FaceRegion(detection: detection, imageWidth: image.width, imageHeight: image.height)
            let rect = RotatedRect(centerX: Double(region.xCenter * w), centerY: Double(region.yCenter * h),
                                   width: Double(region.width * w), height: Double(region.height * h), rotation: Double(region.rotation))
            let crop = ImageToTensor.warp(image, rect: rect, width: FaceMesh.inputSize, height: FaceMesh.inputSize, border: .replicate)
            let (raw, logit) = try mesh.run(ImageToTensor.tensor(crop, table: ImageToTensor.zeroToOne), threads: threads)
            let presence = 1 / (1 + exp(-logit))
            guard presence >= 0.5 else { continue }
            let landmarks = region.project(raw, size: FaceMesh.inputSize)
            let xs = landmarks.map { $0.x * w }, ys = landmarks.map { $0.y * h }
            let span = ((xs.max() ?? 0) - (xs.min() ?? 0)) * ((ys.max() ?? 0) - (ys.min() ?? 0))
            let ratios = (left: eyeAspectRatio(landmarks, leftEye, width: image.width, height: image.height),
                          right: eyeAspectRatio(landmarks, rightEye, width: image.width, height: image.height))
            let analysis = FaceAnalysis(landmarks: landmarks, detectionIndex: index, region: region, presence: presence,
                                        eyeAspectRatios: ratios)
            if best == nil || span > best!.span { best = (analysis, span) }
        }
        return best?.analysis
    }

    static func eyeAspectRatio(_ landmarks: [(x: Float, y: Float, z: Float)], _ indices: [Int], width: Int, height: Int) -> Double {
        let p = indices.map { (x: Double(landmarks[$0].x) * Double(width), y: Double(landmarks[$0].y) * Double(height)) }
        func distance(_ a: Int, _ b: Int) -> Double { ((p[a].x - p[b].x) * (p[a].x - p[b].x) + (p[a].y - p[b].y) * (p[a].y - p[b].y)).squareRoot() }
        let across = distance(0, 3)
        return across > 0 ? (distance(1, 5) + distance(2, 4)) / (2 * across) : 0
    }

    /// The pixel box of the largest detection (by normalized area), clamped to the image:
    /// x0 = max(0, floor(xmin W)), x1 = min(W, ceil((xmin + width) W)), the same for y.
    package static func largestBox(_ detections: [FaceDetection], width: Int, height: Int) -> (index: Int, x0: Int, y0: Int, x1: Int, y1: Int)? {
        guard let index = detections.indices.max(by: { detections[$0].width * detections[$0].height < detections[$1].width * detections[$1].height })
        else { return nil }
        let d = detections[index], w = Double(width), h = Double(height)
        let x0 = max(0, Int((Double(d.xmin) * w).rounded(.down))), y0 = max(0, Int((Double(d.ymin) * h).rounded(.down)))
        let x1 = min(width, Int((Double(d.xmin + d.width) * w).rounded(.up))), y1 = min(height, Int((Double(d.ymin + d.height) * h).rounded(.up)))
        return (index, x0, y0, x1, y1)
    }

    /// Variance of the Laplacian of the luminance inside the largest face box (FrameQuality's
    /// sharpness, at the photo's own resolution); nil without a face or for a box under 3 × 3.
    package static func faceSharpness(_ image: RGBImage, detections: [FaceDetection]) -> Double? {
        guard let box = largestBox(detections, width: image.width, height: image.height),
              box.x1 - box.x0 >= 3, box.y1 - box.y0 >= 3 else { return nil }
        var pixels: [UInt8] = []
        pixels.reserveCapacity((box.x1 - box.x0) * (box.y1 - box.y0) * 3)
        for y in box.y0..<box.y1 {
            pixels += image.pixels[((y * image.width + box.x0) * 3)..<((y * image.width + box.x1) * 3)]
        }
        let crop = RGBImage(width: box.x1 - box.x0, height: box.y1 - box.y0, pixels: pixels)
        return FrameQuality(LuminancePlane(crop)).sharpness
    }
}
