import Foundation
import Imaging
import Models
import Photos
import TestSupport
import Testing

/// Culling with the face models: a burst with faces is ranked by face sharpness and closed eyes
/// rank a frame down (golden/vision2/faces: f01 and its Gaussian blurs, sigma 2 and 4).
@Suite struct FaceCullingTests {
    static let faces = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/golden/vision2/faces/images")

    static func models() throws -> FaceModels {
        let detector = try #require(TestModels.path("face_detection_short_range.tflite"),
                                    "run scripts/fetch-models.py mediapipe-face-detection-short")
        let mesh = try #require(TestModels.path("face_landmark.tflite"), "run scripts/fetch-models.py mediapipe-face-landmark")
        return FaceModels(detector: try BlazeFace(path: detector), mesh: try FaceMesh(path: mesh))
    }

    @Test func `closed eyes discount a face's sharpness, open or blurred eyes do not`() {
        let open = FaceFacts(faces: 1, sharpness: 800, eyeAspectRatio: 0.34)
        let blurred = FaceFacts(faces: 1, sharpness: 2.15, eyeAspectRatio: 0.2175)  // f05, sigma 4: still open
        let closed = FaceFacts(faces: 1, sharpness: 800, eyeAspectRatio: 0.08)
        #expect(!open.eyesClosed && !blurred.eyesClosed && closed.eyesClosed)
        #expect(open.score == 800 && closed.score == 800 * FaceFacts.closedEyesFactor && blurred.score == 2.15)
        #expect(FaceFacts(faces: 1, sharpness: 5, eyeAspectRatio: nil).score == 5)
    }

    @Test func `a burst of one face is ranked by face sharpness, and the reasons say so`() throws {
        let models = try Self.models()
        let folder = try TemporaryDirectory(), cache = try TemporaryDirectory()
        for name in ["f01_astronaut.png", "f04_astronaut_blur2.png", "f05_astronaut_blur4.png"] {
            try FileManager.default.copyItem(atPath: Self.faces.appendingPathComponent(name).path, toPath: folder.file(name))
        }
        let service = PhotoSimilarityService(backend: PerceptualBackend(), capability: .perceptual(PerceptualBackend().identity, reason: "test"),
                                             cacheDirectory: cache.path)
        let report = try PhotoCuller(service: service, faceModels: models).cull(try PhotoFolder.imagePaths(in: folder.path), threads: 2)
        let burst = try #require(report.groups.first { $0.files.count == 3 }, "\(report.groups.map { $0.files.map(\.path) })")
        #expect(burst.files.map { ($0.path as NSString).lastPathComponent } == ["f01_astronaut.png", "f04_astronaut_blur2.png", "f05_astronaut_blur4.png"])
        for frame in burst.files { print("cull: \((frame.path as NSString).lastPathComponent): \(frame.reason)") }
        #expect(burst.files[0].reason.hasPrefix("sharpest face of 3; face sharpness 766.4, eyes open (EAR 0.34)"))
        #expect(burst.files[2].reason.hasPrefix("rank 3 of 3; face sharpness 2.1, eyes open (EAR 0.22)"))
        // Without the face models the same burst is ranked by the whole frame.
        let plain = try PhotoCuller(service: service).cull(try PhotoFolder.imagePaths(in: folder.path), threads: 2)
        #expect(plain.groups.flatMap(\.files).allSatisfy { !$0.reason.contains("face") })
    }
}
