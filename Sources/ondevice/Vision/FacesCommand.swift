import CLISupport
import Foundation
import OnDevice

/// `ondevice faces IMG`: the faces in a photo (MediaPipe's short-range face detector), one line
/// per face with its score, its box in pixels and its six keypoints, or one JSON object (`--json`)
/// with the same figures normalized to the image and in pixels. `--mesh` adds the main face's
/// 468-point mesh (JSON only), its eye aspect ratios and the face box's sharpness. `--mask FILE`
/// writes the person mask (MediaPipe's selfie segmentation) as an 8-bit grayscale PNG and
/// reports the sharpness inside it.
enum FacesCommand {
    static func run(_ args: ArraySlice<String>) async throws {
        let a = try Arguments(args, options: ["threads", "mask"], flags: ["json", "mesh"])
        guard let file = a.positionals.first, a.positionals.count == 1 else { throw CLIError.missingArgument("IMG") }
        var configuration = OnDeviceAI.Configuration()
        configuration.threads = try a.int("threads")
        if let t = configuration.threads, t < 1 { throw CLIError.invalidValue(option: "--threads", value: "\(t)", expected: "positive") }
        let ai = OnDeviceAI(configuration: configuration)
        let result = try await ai.detectFaces(in: URL(fileURLWithPath: file), mesh: a.has("mesh"))
        var maskFraction: Double?, subjectSharpness: Double?
        if let out = a.string("mask") {
            let mask = try await ai.segmentPerson(in: URL(fileURLWithPath: file))
            do { try mask.pngData().write(to: URL(fileURLWithPath: out)) } catch let error as OnDeviceError { throw error } catch {
                throw CLIError.invalidValue(option: "--mask", value: out, expected: "a writable file (\(error.localizedDescription))")
            }
            maskFraction = mask.personFraction
            subjectSharpness = mask.subjectSharpness
        }
        let w = Double(result.imageWidth), h = Double(result.imageHeight)
        if a.has("json") {
            var mesh: Any = NSNull()
            if let m = result.mesh {
                mesh = [
                    "face_index": m.faceIndex, "presence": Double(m.presence),
                    "eye_aspect_ratio": ["left": m.leftEyeAspectRatio, "right": m.rightEyeAspectRatio],
                    "points": m.points.map { [Double($0.x), Double($0.y), Double($0.z)] },
                ] as [String: Any]
            }
            try printJSON([
                "file": file, "model": result.model, "width": result.imageWidth, "height": result.imageHeight,
                "mesh": a.has("mesh") ? mesh : NSNull(), "mask_person_fraction": maskFraction.map { $0 as Any } ?? NSNull(),
                "subject_sharpness": subjectSharpness.map { $0 as Any } ?? NSNull(), "face_sharpness": result.faceSharpness.map { $0 as Any } ?? NSNull(),
                "faces": result.faces.map { f in
                    [
                        "score": Double(f.score),
                        "box": ["x": Double(f.x), "y": Double(f.y), "width": Double(f.width), "height": Double(f.height)],
                        "box_px": ["x": Double(f.x) * w, "y": Double(f.y) * h, "width": Double(f.width) * w, "height": Double(f.height) * h],
                        "keypoints": f.keypoints.map { k in
                            ["name": k.kind.rawValue, "x": Double(k.x), "y": Double(k.y), "x_px": Double(k.x) * w, "y_px": Double(k.y) * h]
                                as [String: Any]
                        },
                    ] as [String: Any]
                },
            ])
            return
        }
        if result.faces.isEmpty { writeOut("no faces (\(result.imageWidth)x\(result.imageHeight))\n") }
        for (i, f) in result.faces.enumerated() {
            writeOut(String(format: "face %ld  score %.3f  box x %.1f y %.1f w %.1f h %.1f px\n", i + 1, Double(f.score),
                            Double(f.x) * w, Double(f.y) * h, Double(f.width) * w, Double(f.height) * h))
            for k in f.keypoints {
                writeOut("  " + k.kind.rawValue.padding(toLength: 16, withPad: " ", startingAt: 0)
                         + String(format: " %7.1f %7.1f\n", Double(k.x) * w, Double(k.y) * h))
            }
        }
        if let m = result.mesh {
            writeOut(String(format: "mesh of face %ld: 468 points, eye aspect ratio left %.3f right %.3f\n", m.faceIndex + 1,
                            m.leftEyeAspectRatio, m.rightEyeAspectRatio))
        }
        if let s = result.faceSharpness { writeOut(String(format: "face sharpness (Laplacian variance) %.2f\n", s)) }
        if let f = maskFraction, let out = a.string("mask") { writeOut(String(format: "person mask: %.1f%% of pixels over 0.5, written to %@\n", 100 * f, out)) }
        if let s = subjectSharpness { writeOut(String(format: "subject sharpness (Laplacian variance inside the mask) %.2f\n", s)) }
    }
}
