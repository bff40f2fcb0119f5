import Foundation
import ModelStore
import Models
import Photos
import Runtime

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
