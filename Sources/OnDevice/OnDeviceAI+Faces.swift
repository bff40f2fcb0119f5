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

/// The 468-point face mesh of a photo's main face (the largest of its first four faces) and the
/// figures read from it.
public struct FaceMeshResult: Sendable, Equatable {
    /// One mesh point: x, y normalized to the image, z relative depth in the unit of x (smaller is
    /// closer to the camera).
    public struct Point: Sendable, Equatable {
        public let x: Float, y: Float, z: Float
    }

    /// Index into `FaceDetectionResult.faces` of the face the mesh was built from.
    public let faceIndex: Int
    /// 468 points in MediaPipe's face mesh order.
    public let points: [Point]
    /// Eye aspect ratio (eye height over width, about 0.3 for an open eye, lower as it closes)
    /// of the eye on the image's left and the one on its right. Blur lowers it too.
    public let leftEyeAspectRatio: Double
    public let rightEyeAspectRatio: Double
    /// How sure the mesh is that it sees a face, 0.5...1.
    public let presence: Float
}

/// The faces in one photo, best first, and the size of the upright image they refer to (after
/// EXIF orientation).
public struct FaceDetectionResult: Sendable, Equatable {
    public let imageWidth: Int
    public let imageHeight: Int
    public let faces: [DetectedFace]
    /// The detector's catalog id.
    public let model: String
    /// The main face's mesh, when asked for and a face was found.
    public var mesh: FaceMeshResult? = nil
    /// Variance of the Laplacian of the luminance inside the largest face box (higher is
    /// sharper; compare faces of similar size in pixels), when asked for with the mesh.
    public var faceSharpness: Double? = nil
}

extension OnDeviceAI {
    /// Finds the faces in the photo at `image` with MediaPipe's short-range face detector
    /// (`mediapipe-face-detection-short`, leased from the runtime, downloaded on first use): faces
    /// up to about two metres from the camera, with their eyes, nose, mouth and ears.
    /// With `mesh`, the main face's 468-point mesh (`mediapipe-face-landmark`), its eye aspect
    /// ratios and the face box's sharpness come too.
    public func detectFaces(in image: URL, mesh: Bool = false) async throws -> FaceDetectionResult {
        let modelId = Op.faces.defaultModelId, meshId = "mediapipe-face-landmark"
        let lease = try await leaseModel(ResidentFaceDetector.self, modelId)
        let meshLease: EngineLease<ResidentFaceMesh>?
        do { meshLease = mesh ? try await leaseModel(ResidentFaceMesh.self, meshId) : nil } catch {
            await lease.release()
            throw error
        }
        let detector = lease.model.model, meshModel = meshLease?.model.model, threads = modelThreads, path = image.path
        let found: (width: Int, height: Int, faces: [Models.FaceDetection], analysis: FaceAnalysis?, sharpness: Double?)
        do {
            found = try await PhotoLibrary.offPool {
                if let meshModel { return try FaceFinder.analyze(fileAt: path, detector: detector, mesh: meshModel, threads: threads) }
                let f = try FaceFinder.detect(fileAt: path, model: detector, threads: threads)
                return (f.width, f.height, f.faces, nil, nil)
            }
        } catch let error as PhotosError {
            await lease.release()
            await meshLease?.release()
            var failure = OnDeviceError(code: .invalidArgument, message: error.description, cause: error)
            failure.path = path
            throw failure
        } catch {
            await lease.release()
            await meshLease?.release()
            throw OnDeviceError.engine("\(error)")
        }
        await lease.release()
        await meshLease?.release()
        let kinds = FaceKeypoint.Kind.allCases
        let faces = found.faces.map { d in
            DetectedFace(score: d.score, x: d.xmin, y: d.ymin, width: d.width, height: d.height,
                         keypoints: zip(kinds, d.keypoints).map { FaceKeypoint(kind: $0, x: $1.x, y: $1.y) })
        }
        var result = FaceDetectionResult(imageWidth: found.width, imageHeight: found.height, faces: faces, model: modelId)
        if let a = found.analysis {
            result.mesh = FaceMeshResult(faceIndex: a.detectionIndex, points: a.landmarks.map { FaceMeshResult.Point(x: $0.x, y: $0.y, z: $0.z) },
                                   leftEyeAspectRatio: a.eyeAspectRatios.left, rightEyeAspectRatio: a.eyeAspectRatios.right,
                                   presence: a.presence)
        }
        result.faceSharpness = found.sharpness
        return result
    }
}

/// A person mask: how likely each pixel of the upright image belongs to a person, 0...1.
public struct PersonMaskResult: Sendable, Equatable {
    public let imageWidth: Int
    public let imageHeight: Int
    /// `imageWidth * imageHeight` values, row-major, person high.
    public let values: [Float]
    /// The segmenter's catalog id.
    public let model: String
    /// Variance of the Laplacian of the luminance over the pixels whose value is over 0.5 (the
    /// person): the subject's sharpness, whatever the background does; nil when under 64
    /// pixels are the subject. Higher is sharper; compare photos of similar size in pixels.
    public let subjectSharpness: Double?

    /// Share of pixels over 0.5.
    public var personFraction: Double {
        values.isEmpty ? 0 : Double(values.lazy.filter { $0 > 0.5 }.count) / Double(values.count)
    }

    /// The mask as an 8-bit grayscale PNG (255 where the mask is 1).
    public func pngData() throws -> Data {
        do { return Data(try PersonMask.png(values, width: imageWidth, height: imageHeight)) } catch {
            throw OnDeviceError(code: .invalidArgument, message: error.description, cause: error)
        }
    }
}

extension OnDeviceAI {
    /// The person mask of the photo at `image`, as MediaPipe's selfie segmentation computes it
    /// (`mediapipe-selfie-segmentation`, leased from the runtime, downloaded on first use). Made
    /// for people in the foreground (selfies, portraits); it is not a person detector and marks
    /// other close subjects too.
    public func segmentPerson(in image: URL) async throws -> PersonMaskResult {
        let modelId = "mediapipe-selfie-segmentation"
        let threads = modelThreads, path = image.path
        let found = try await withImageModel(ResidentSelfieSegmenter.self, modelId, path: path) { resident in
            try PersonMask.segment(fileAt: path, model: resident.model, threads: threads)
        }
        return PersonMaskResult(imageWidth: found.width, imageHeight: found.height, values: found.mask, model: modelId,
                                subjectSharpness: found.subjectSharpness)
    }
}
