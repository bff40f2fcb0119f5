import Foundation
import Imaging
import Models

/// What culling reads from a frame's faces: how many there are, how sharp the largest face box
/// is, and the main face's eye aspect ratios.
package struct FaceFacts: Sendable, Equatable {
    package let faces: Int
    /// Laplacian variance inside the largest face box (`FaceAnalysis.faceSharpness`).
    package let sharpness: Double?
    /// Mean of the main face's two eye aspect ratios, when its mesh was found.
    package let eyeAspectRatio: Double?

    package init(faces: Int, sharpness: Double?, eyeAspectRatio: Double?) {
        self.faces = faces
        self.sharpness = sharpness
        self.eyeAspectRatio = eyeAspectRatio
    }

    /// Below this mean eye aspect ratio the eyes are taken as closed. Open eyes measure about
    /// 0.30 to 0.34 on golden/vision2's sharp portraits and 0.22 when heavily blurred (sigma 4),
    /// which must not count as closed; no closed-eye photo was available to check the value
    /// against (README), so it sits below every open-eye figure seen, with room for blur.
    package static let closedEyesThreshold = 0.18
    /// A frame whose main face has its eyes closed keeps this share of its face sharpness.
    package static let closedEyesFactor = 0.25

    package var eyesClosed: Bool { (eyeAspectRatio ?? 1) < Self.closedEyesThreshold }

    /// The ranking key when faces decide: face sharpness, discounted when the eyes are closed.
    package var score: Double { (sharpness ?? 0) * (eyesClosed ? Self.closedEyesFactor : 1) }

    /// The facts of `image` with the two face models.
    package static func of(_ image: RGBImage, detector: BlazeFace, mesh: FaceMesh, threads: Int) throws(ModelError) -> FaceFacts {
        let faces = try FaceFinder.detect(in: image, model: detector, threads: threads)
        guard !faces.isEmpty else { return FaceFacts(faces: 0, sharpness: nil, eyeAspectRatio: nil) }
        let analysis = try FaceAnalysis.analyze(image, detections: faces, mesh: mesh, threads: threads)
        let ear = analysis.map { ($0.eyeAspectRatios.left + $0.eyeAspectRatios.right) / 2 }
        return FaceFacts(faces: faces.count, sharpness: FaceAnalysis.faceSharpness(image, detections: faces), eyeAspectRatio: ear)
    }
}

/// The two face models culling runs, when the caller has them.
package struct FaceModels: Sendable {
    package let detector: BlazeFace
    package let mesh: FaceMesh

    package init(detector: BlazeFace, mesh: FaceMesh) {
        self.detector = detector
        self.mesh = mesh
    }
}
