import Foundation
import ModelStore
import Models
import Photos
import Runtime

/// A point on a detected face, normalized to the image like the face's box.
public struct FaceKeypoint: Sendable, Equatable {
    /// Which point; right and left are the subject's, so in an unmirrored frontal photo the right
    /// eye is on the image's left.
    public enum Kind: String, Sendable, CaseIterable {
        case rightEye, leftEye, noseTip, mouthCenter, rightEarTragion, leftEarTragion
    }

    public let kind: Kind
    /// 0 at the image's left and top edges, 1 at the right and bottom.
    public let x: Float
    public let y: Float
}

/// One face: the detector's confidence, its box and six keypoints, normalized to the image
/// (multiply by `FaceDetectionResult.imageWidth`/`imageHeight` for pixels).
public struct DetectedFace: Sendable, Equatable {
    /// 0...1; faces under 0.5 are not reported.
    public let score: Float
    public let x: Float
    public let y: Float
    public let width: Float
    public let height: Float
    public let keypoints: [FaceKeypoint]
}

/// The faces in one photo, best first, and the size of the upright image they refer to (after
/// EXIF orientation).
public struct FaceDetectionResult: Sendable, Equatable {
    public let imageWidth: Int
    public let imageHeight: Int
    public let faces: [DetectedFace]
    /// The detector's catalog id.
    public let model: String
}

extension OnDeviceAI {
    /// Finds the faces in the photo at `image` with MediaPipe's short-range face detector
    /// (`mediapipe-face-detection-short`, leased from the runtime, downloaded on first use): faces
    /// up to about two metres from the camera, with their eyes, nose, mouth and ears.
    public func detectFaces(in image: URL) async throws -> FaceDetectionResult {
        let modelId = Op.faces.defaultModelId
        let lease = try await leaseModel(ResidentFaceDetector.self, modelId)
        let model = lease.model.model, threads = modelThreads, path = image.path
        let found: (width: Int, height: Int, faces: [FaceDetection])
        do {
            found = try await PhotoLibrary.offPool { try FaceFinder.detect(fileAt: path, model: model, threads: threads) }
        } catch let error as PhotosError {
            await lease.release()
            var failure = OnDeviceError(code: .invalidArgument, message: error.description, cause: error)
            failure.path = path
            throw failure
        } catch {
            await lease.release()
            throw OnDeviceError.engine("\(error)")
        }
        await lease.release()
        let kinds = FaceKeypoint.Kind.allCases
        let faces = found.faces.map { d in
            DetectedFace(score: d.score, x: d.xmin, y: d.ymin, width: d.width, height: d.height,
                         keypoints: zip(kinds, d.keypoints).map { FaceKeypoint(kind: $0, x: $1.x, y: $1.y) })
        }
        return FaceDetectionResult(imageWidth: found.width, imageHeight: found.height, faces: faces, model: modelId)
    }
}
