import CLISupport
import Foundation
import Imaging
import ModelStore
import Photos
import Platform
import Runtime

/// `Benchmarks photos [--images N] [--width W --height H] [--backend B]`: images/s of
/// `photos index` (decode + quality + descriptor, cache cold) at 1 and 2 threads over a folder of
/// generated JPEGs, and the process's peak resident memory. `--faces` then times face culling's
/// per-frame work (decode, face detection, and the mesh of the main face when one is found) at 1
/// and 2 images at once, over the photos of `--in DIR` (generated scenes hold no faces, so the
/// mesh only runs on real photos). `--ocr` times text reading over the photos of `--in DIR`
/// at 1 and 2 threads.
enum PhotosBenchCommand {
    static func run(_ args: ArraySlice<String>) async throws {
        try await run(Arguments(args, options: ["in", "threads", "backend", "cache", "images", "width", "height"], flags: ["faces", "ocr"]))
    }

    /// The index timing, then `--faces` and `--ocr` when asked.
    static func run(_ a: Arguments) async throws {
        try index(a, feature: try await makeFeature(a))
        if a.has("faces") {
            guard let faces = try? await BenchModels.runtime().faceLeases() else {
                throw CLIError.invalidValue(option: "--faces", value: "", expected: "mediapipe-face-detection-short and mediapipe-face-landmark installed")
            }
            do { try Self.faces(a, models: FaceModels(detector: faces.0.model.model, mesh: faces.1.model.model)) } catch {
                await faces.0.release()
                await faces.1.release()
                throw error
            }
            await faces.0.release()
            await faces.1.release()
        }
        if a.has("ocr") { try ocr(a, reader: try await textReader()) }
    }

    /// The three PP-OCR models from the store (the bench times reading, not loading).
    static func textReader() async throws -> TextReader {
        let store = try ModelStore(configuration: .fromEnvironment())
        var models: [String] = []
        for id in [TextReader.detectorId, TextReader.classifierId, TextReader.recogniserId] {
            guard let installed = try await store.resolve(id), let path = installed.filePaths.first else {
                throw CLIError.io("\(id) is not installed (ondevice models pull \(id))")
            }
            models.append(path)
        }
        return try TextReader(detector: models[0], classifier: models[1], recogniser: models[2])
    }

    /// The feature with the backend `--backend` (or `auto`) resolves to.
    static func makeFeature(_ a: Arguments) async throws -> PhotoSimilarityFeature {
        let raw = a.string("backend") ?? PhotoBackendPreference.automatic.rawValue
        guard let preference = PhotoBackendPreference(rawValue: raw) else {
            throw CLIError.invalidValue(option: "--backend", value: raw, expected: "auto, perceptual or neural")
        }
        let runtime = try await OnDeviceRuntime.make()
        let feature = PhotoSimilarityFeature(cacheDirectory: a.string("cache") ?? PhotoSimilarityFeature.defaultCacheDirectory(),
                                             neural: EfficientNetBackendLoader(runtime: runtime))
        await feature.select(preference, revision: 1)
        if preference == .neural, case .perceptual(_, let reason) = feature.capability {
            throw CLIError.io("neural backend unavailable: \(reason)")
        }
        return feature
    }

    static func index(_ a: Arguments, feature: PhotoSimilarityFeature) throws {
        let count = try a.int("images") ?? 200
        let width = try a.int("width") ?? 1600, height = try a.int("height") ?? 1200
        let folder = NSTemporaryDirectory() + "ondevice-photos-bench-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var bytes = 0
        for i in 0..<count {
            let jpeg = try JPEGEncoder.encode(scene(index: i, width: width, height: height), quality: 90)
            bytes += jpeg.count
            try Data(jpeg).write(to: URL(fileURLWithPath: folder + String(format: "/img%04d.jpg", i)))
        }
        let paths = try PhotoFolder.imagePaths(in: folder)
        let machine = "\(ProcessInfo.processInfo.activeProcessorCount) cores"
        print("photos index: \(count) JPEGs \(width)x\(height) (\(bytes / count / 1024) KiB each), backend \(feature.capability.identity), \(machine)")
        for threads in [1, 2] {
            // A cold cache each round: every image is decoded and described.
            let service = PhotoSimilarityService(backend: feature.service.backend, capability: feature.capability,
                                                 cacheDirectory: folder + "/cache-\(threads)")
            let start = DispatchTime.now().uptimeNanoseconds
            let results = service.facts(for: paths, threads: threads)
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            let failed = results.filter { if case .failure = $0 { true } else { false } }.count
            print(String(format: "threads %d: %.1f images/s (%.2f s, %d failed), peak RSS %.0f MiB",
                         threads, Double(count) / seconds, seconds, failed, Double(peakResidentBytes()) / 1_048_576))
        }
    }

    /// Face facts (as `photos cull` reads them) of every image under `--in`, or of generated
    /// scenes, with `threads` images in flight, each model run on one thread.
    static func faces(_ a: Arguments, models: FaceModels) throws {
        let paths: [String]
        var folder: String?
        if let dir = a.string("in") {
            paths = try PhotoFolder.imagePaths(in: dir)
        } else {
            let tmp = NSTemporaryDirectory() + "ondevice-faces-bench-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
            for i in 0..<(try a.int("images") ?? 50) {
                let jpeg = try JPEGEncoder.encode(scene(index: i, width: try a.int("width") ?? 1600, height: try a.int("height") ?? 1200), quality: 90)
                try Data(jpeg).write(to: URL(fileURLWithPath: tmp + String(format: "/img%04d.jpg", i)))
            }
            paths = try PhotoFolder.imagePaths(in: tmp)
            folder = tmp
        }
        defer { if let folder { try? FileManager.default.removeItem(atPath: folder) } }
        guard !paths.isEmpty else { throw CLIError.invalidValue(option: "--in", value: a.string("in") ?? "", expected: "a folder with images") }
        print("faces (detect + main face's mesh): \(paths.count) images from \(a.string("in") ?? "generated scenes")")
        for threads in [1, 2] {
            let all = paths
            /// Next image index, then images with faces, meshed, failed.
            let state = Locked((next: 0, withFaces: 0, meshed: 0, failed: 0))
            let start = DispatchTime.now().uptimeNanoseconds
            DispatchQueue.concurrentPerform(iterations: threads) { _ in
                while true {
                    let i = state.withLock { s in
                        s.next += 1
                        return s.next - 1
                    }
                    guard i < all.count else { return }
                    let facts = (try? ImageDecoder().decode(fileAt: all[i]).image).flatMap {
                        try? FaceFacts.of($0, detector: models.detector, mesh: models.mesh, threads: 1)
                    }
                    state.withLock { s in
                        if let facts {
                            if facts.faces > 0 { s.withFaces += 1 }
                            if facts.eyeAspectRatio != nil { s.meshed += 1 }
                        } else {
                            s.failed += 1
                        }
                    }
                }
            }
            let (withFaces, meshed, failed) = state.withLock { ($0.withFaces, $0.meshed, $0.failed) }
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            print(String(format: "threads %d: %.1f images/s (%.2f s; %d with faces, %d meshed, %d failed), peak RSS %.0f MiB",
                         threads, Double(paths.count) / seconds, seconds, withFaces, meshed, failed, Double(peakResidentBytes()) / 1_048_576))
        }
    }

    /// Text reading as `photos index --text` and `ocr` do it (decode, then PP-OCR detection,
    /// direction and recognition, one image at a time with its networks split over the threads)
    /// of every image under `--in`, at 1 and 2 threads. Generated scenes hold no text, so the
    /// folder is required.
    static func ocr(_ a: Arguments, reader: TextReader) throws {
        guard let dir = a.string("in") else { throw CLIError.missingArgument("--in DIR (photos with text, for --ocr)") }
        let paths = try PhotoFolder.imagePaths(in: dir)
        guard !paths.isEmpty else { throw CLIError.invalidValue(option: "--in", value: dir, expected: "a folder with images") }
        print("ocr (decode + det + cls + rec): \(paths.count) images from \(dir)")
        for threads in [1, 2] {
            var lines = 0, failed = 0
            let start = DispatchTime.now().uptimeNanoseconds
            for path in paths {
                do { lines += try reader.read(fileAt: path, threads: threads).filter(\.kept).count } catch { failed += 1 }
            }
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            print(String(format: "threads %d: %.2f images/s (%.2f s; %d lines read, %d failed), peak RSS %.0f MiB",
                         threads, Double(paths.count) / seconds, seconds, lines, failed, Double(peakResidentBytes()) / 1_048_576))
        }
    }

    /// A deterministic synthetic photo: gradients, a few discs and per-pixel noise, so the JPEG
    /// carries realistic entropy and every image differs.
    static func scene(index: Int, width: Int, height: Int) -> RGBImage {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        var state = UInt64(index &+ 1) &* 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 { state ^= state << 13; state ^= state >> 7; state ^= state << 17; return state }
        let discs = (0..<6).map { _ in (Int(next() % UInt64(width)), Int(next() % UInt64(height)), Int(next() % 200) + 40,
                                         [UInt8(next() % 256), UInt8(next() % 256), UInt8(next() % 256)]) }
        for y in 0..<height {
            for x in 0..<width {
                var rgb = [UInt8((x * 255) / width), UInt8((y * 255) / height), UInt8((index * 37) % 256)]
                for (cx, cy, r, colour) in discs where (x - cx) * (x - cx) + (y - cy) * (y - cy) < r * r { rgb = colour }
                let noise = Int(next() % 17) - 8
                let i = (y * width + x) * 3
                for c in 0..<3 { pixels[i + c] = UInt8(max(0, min(255, Int(rgb[c]) + noise))) }
            }
        }
        return RGBImage(width: width, height: height, pixels: pixels)
    }

    /// VmHWM from /proc/self/status: the peak resident set of this process.
    static func peakResidentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kib = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") else { return 0 }
        return kib * 1024
    }
}
