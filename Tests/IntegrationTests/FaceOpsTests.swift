import Foundation
import ModelStore
import OnDevice
import Runtime
import Testing
import TestSupport

/// Faces through the doors: capability and residency for the face models, `detectFaces` on the
/// public API, and `ondevice faces` (golden/vision2/faces/images/f01_astronaut.png, one face).
@Suite struct FaceOpsTests {
    static let image = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("shared/golden/vision2/faces/images/f01_astronaut.png")

    @Test func `the face detector is ready and leased through the runtime within its estimate`() async throws {
        _ = try #require(TestModels.path("face_detection_short_range.tflite"), "run scripts/fetch-models.py mediapipe-face-detection-short")
        var dependencies = RuntimeDependencies.complete()
        dependencies.settingsFile = nil
        dependencies.pressureProbe = nil
        let runtime = try await OnDeviceRuntime.make(dependencies)
        let report = try await runtime.capability(.faces)
        #expect(report.modelId == "mediapipe-face-detection-short" && report.status == .ready, "\(report.status)")
        let estimate = try #require(report.residentEstimate)
        let lease = try await runtime.lease(ResidentFaceDetector.self, modelId: report.modelId, options: LoadOptions())
        let resident = lease.model.residentBytes
        #expect(resident <= estimate.weightBytes + estimate.scratchBytes && resident > estimate.weightBytes / 2, "\(resident) vs \(estimate)")
        #expect(await runtime.residency.snapshot().modelIds == [report.modelId])
        await lease.release()
        await runtime.shutdown()
    }

    @Test func `detectFaces finds the face, its keypoints and with the mesh its eyes`() async throws {
        _ = try #require(TestModels.path("face_landmark.tflite"), "run scripts/fetch-models.py mediapipe-face-landmark")
        let ai = OnDeviceAI()
        let plain = try await ai.detectFaces(in: Self.image)
        #expect(plain.imageWidth == 384 && plain.imageHeight == 384 && plain.faces.count == 1 && plain.mesh == nil)
        let face = try #require(plain.faces.first)
        // faces.jsonl: score 0.9545545, box (0.29518703, 0.19510715, 0.26770434, 0.26770413).
        #expect(abs(face.score - 0.9545545) < 1e-4 && abs(face.x - 0.29518703) < 1e-4 && abs(face.width - 0.26770434) < 1e-4)
        #expect(face.keypoints.map(\.kind) == FaceKeypoint.Kind.allCases)
        #expect(face.keypoints[0].x < face.keypoints[1].x, "the subject's right eye is on the image's left")
        let meshed = try await ai.detectFaces(in: Self.image, mesh: true)
        let mesh = try #require(meshed.mesh)
        #expect(mesh.points.count == 468 && mesh.faceIndex == 0)
        // faces.jsonl: EAR 0.341184 / 0.338026, face lapvar_y 766.369.
        #expect(abs(mesh.leftEyeAspectRatio - 0.341184) < 1e-3 && abs(mesh.rightEyeAspectRatio - 0.338026) < 1e-3)
        #expect(abs((meshed.faceSharpness ?? 0) - 766.369) < 1e-2)
        await #expect(throws: OnDeviceError.self) { try await ai.detectFaces(in: URL(fileURLWithPath: "/nonexistent/face.png")) }
    }

    @Test func `segmentPerson and ondevice faces --mask give MediaPipe's person mask`() async throws {
        _ = try #require(TestModels.path("selfie_segmentation.tflite"), "run scripts/fetch-models.py mediapipe-selfie-segmentation")
        let mask = try await OnDeviceAI().segmentPerson(in: Self.image)
        #expect(mask.imageWidth == 384 && mask.imageHeight == 384 && mask.values.count == 384 * 384)
        // faces.jsonl: mask mean 0.498646, share over 0.5 0.503703.
        let mean = mask.values.reduce(0.0) { $0 + Double($1) } / Double(mask.values.count)
        #expect(abs(mean - 0.498646) < 2e-5 && abs(mask.personFraction - 0.503703) < 1e-3, "\(mean) \(mask.personFraction)")
        let png = try mask.pngData()
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("mask-\(UUID().uuidString).png")
        defer { try? FileManager.default.removeItem(at: out) }
        let run = try await CLIRunner.run(["faces", "--json", "--mask", out.path, Self.image.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try Data(contentsOf: out) == png)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(abs((json["mask_person_fraction"] as? Double ?? -1) - 0.503703) < 1e-3)
        #expect(json["subject_sharpness"] as? Double == mask.subjectSharpness)
    }

    @Test func `the subject's sharpness inside the person mask falls with blur`() async throws {
        _ = try #require(TestModels.path("selfie_segmentation.tflite"), "run scripts/fetch-models.py mediapipe-selfie-segmentation")
        let ai = OnDeviceAI()
        let folder = Self.image.deletingLastPathComponent()
        var figures: [Double] = []
        for name in ["f01_astronaut.png", "f04_astronaut_blur2.png", "f05_astronaut_blur4.png"] {
            figures.append(try #require(try await ai.segmentPerson(in: folder.appendingPathComponent(name)).subjectSharpness, "\(name)"))
        }
        // vision2 README: Gaussian blur sigma 2 cuts the face box's sharpness 70-90x, sigma 4 350-600x.
        #expect(figures[0] > 20 * figures[1] && figures[1] > 2 * figures[2], "\(figures)")
    }

    @Test func `ondevice faces prints the face as JSON and refuses an unreadable file`() async throws {
        _ = try #require(TestModels.path("face_detection_short_range.tflite"), "run scripts/fetch-models.py mediapipe-face-detection-short")
        let out = try await CLIRunner.run(["faces", "--json", Self.image.path])
        #expect(out.status == 0, "\(out.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any])
        let faces = try #require(json["faces"] as? [[String: Any]])
        #expect(faces.count == 1 && json["width"] as? Int == 384)
        let box = try #require(faces.first?["box_px"] as? [String: Double])
        #expect(abs((box["x"] ?? 0) - 0.29518703 * 384) < 0.05)
        #expect((faces.first?["keypoints"] as? [[String: Any]])?.count == 6)
        let bad = try await CLIRunner.run(["faces", "/nonexistent/face.png"])
        #expect(bad.status == 1 && bad.stderr.contains("/nonexistent/face.png"), "\(bad.stderr)")
    }
}
