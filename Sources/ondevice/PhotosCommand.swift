import Foundation
import Imaging
import ModelStore
import Photos
import Runtime

/// `ondevice photos index|similar|cull|search`: photo similarity, burst culling and text search
/// over a folder (`index --text` also reads each photo's text with the OCR models).
enum PhotosCommand {
    static let valued: Set<String> = ["in", "k", "threads", "backend", "gap", "cache", "images", "width", "height"]

    static func run(_ args: ArraySlice<String>) async throws {
        guard let sub = args.first else { throw CLIError.missingArgument("photos subcommand (index, similar, cull, search)") }
        let a = try Arguments(args.dropFirst(), options: valued, flags: ["json", "csv", "text", "faces"])
        if sub == "search" { return try search(a) }
        let feature = try await makeFeature(a)
        let threads = try a.int("threads") ?? ProcessInfo.processInfo.activeProcessorCount
        switch sub {
        case "index":
            guard let dir = a.positionals.first else { throw CLIError.missingArgument("DIR") }
            let paths = try PhotoFolder.imagePaths(in: dir)
            let results = scan(paths, service: feature.service, threads: threads)
            try feature.service.saveCache()
            let failed = results.filter { if case .failure = $0 { true } else { false } }.count
            let textRead = a.has("text") ? try await indexText(paths, a, threads: threads) : nil
            if a.has("json") {
                var report: [String: Any] = ["photos": paths.count - failed, "failed": failed, "backend": feature.capability.description]
                if let textRead { report["text_read"] = textRead }
                try printJSON(report)
            } else {
                print("indexed \(paths.count - failed) photo\(paths.count - failed == 1 ? "" : "s")"
                      + (failed > 0 ? ", \(failed) failed" : "") + "; backend: \(feature.capability)"
                      + (textRead.map { "; text read in \($0)" } ?? ""))
            }
        case "similar":
            guard let image = a.positionals.first else { throw CLIError.missingArgument("IMG") }
            let dir = try a.require("in")
            let k = try a.int("k") ?? 10
            let paths = try PhotoFolder.imagePaths(in: dir)
            let results = scan(paths, service: feature.service, threads: threads)
            try feature.service.saveCache()
            let query = try feature.service.facts(for: absolute(image))
            let candidates = zip(paths, results).compactMap { path, r in (try? r.get()).map { (path: path, descriptor: $0.descriptor) } }
            let nearest = try PhotoSearch.nearest(to: query.descriptor, queryPath: absolute(image), among: candidates, k: k)
            if a.has("json") {
                try printJSON(["backend": feature.capability.description,
                               "results": nearest.map { ["path": $0.path, "similarity": Double($0.similarity)] }])
            } else {
                for n in nearest { print(String(format: "%.4f\t%@", n.similarity, n.path)) }
            }
        case "cull":
            guard let dir = a.positionals.first else { throw CLIError.missingArgument("DIR") }
            guard !(a.has("json") && a.has("csv")) else { throw CLIError.conflicting("--json", "--csv") }
            let paths = try PhotoFolder.imagePaths(in: dir)
            let bar = ProgressBar(label: "decoding")
            var culler = PhotoCuller(service: feature.service)
            culler.maxGapSeconds = try a.float("gap").map(Double.init) ?? culler.maxGapSeconds
            // Bursts with faces rank by face sharpness and open eyes when both face models are installed.
            let faces = try? await RuntimeModels.runtime().faceLeases()
            culler.faceModels = faces.map { FaceModels(detector: $0.0.model.model, mesh: $0.1.model.model) }
            let report: CullReport
            do {
                report = try culler.cull(paths, threads: threads) { done, total in bar.updateCount(done: done, total: total) }
            } catch {
                await faces?.0.release()
                await faces?.1.release()
                throw error
            }
            await faces?.0.release()
            await faces?.1.release()
            bar.finishCount()
            try feature.service.saveCache()
            reportFailures(report.failures)
            if a.has("json") { try printJSON(PhotosOutput.json(report)) } else if a.has("csv") { print(PhotosOutput.csv(report), terminator: "") } else { print(PhotosOutput.text(report), terminator: "") }
        case "bench":
            try PhotosBenchCommand.run(a, feature: feature)
            if a.has("faces") {
                guard let faces = try? await RuntimeModels.runtime().faceLeases() else {
                    throw CLIError.invalidValue(option: "--faces", value: "", expected: "mediapipe-face-detection-short and mediapipe-face-landmark installed")
                }
                do { try PhotosBenchCommand.faces(a, models: FaceModels(detector: faces.0.model.model, mesh: faces.1.model.model)) } catch {
                    await faces.0.release()
                    await faces.1.release()
                    throw error
                }
                await faces.0.release()
                await faces.1.release()
            }
        default:
            throw CLIError.unknownCommand("photos \(sub)")
        }
    }

    /// Reads the text of new or changed photos into the text index; returns how many were read.
    static func indexText(_ paths: [String], _ a: Arguments, threads: Int) async throws -> Int {
        let store = try ModelStore(configuration: .fromEnvironment())
        var models: [String] = []
        for id in [TextReader.detectorId, TextReader.classifierId, TextReader.recogniserId] {
            guard let installed = try await store.resolve(id), let path = installed.filePaths.first else {
                throw CLIError.io("\(id) is not installed (ondevice models pull \(id))")
            }
            models.append(path)
        }
        let reader = try TextReader(detector: models[0], classifier: models[1], recogniser: models[2])
        var index = PhotoTextIndex(directory: a.string("cache") ?? PhotoSimilarityFeature.defaultCacheDirectory())
        let bar = ProgressBar(label: "reading text")
        let (read, failures) = index.update(paths, reader: reader, threads: threads) { done, total in bar.updateCount(done: done, total: total) }
        bar.finishCount()
        reportFailures(failures)
        try index.save()
        return read
    }

    /// `photos search TEXT [--in DIR] [--k N]`: photos whose indexed text matches TEXT.
    static func search(_ a: Arguments) throws {
        guard let query = a.positionals.first else { throw CLIError.missingArgument("TEXT") }
        let index = PhotoTextIndex(directory: a.string("cache") ?? PhotoSimilarityFeature.defaultCacheDirectory())
        let hits = index.search(query, under: a.string("in").map(absolute), k: try a.int("k") ?? 10)
        if a.has("json") {
            try printJSON(["query": query, "results": hits.map { ["path": $0.path, "score": $0.score, "text": $0.text] as [String: Any] }])
        } else {
            for hit in hits {
                print(String(format: "%.3f\t%@\t%@", hit.score, hit.path, hit.text.replacingOccurrences(of: "\n", with: " | ")))
            }
        }
    }

    /// The feature with the backend `--backend` (or `auto`) resolves to.
    static func makeFeature(_ a: Arguments) async throws -> PhotoSimilarityFeature {
        let raw = a.string("backend") ?? PhotoBackendPreference.automatic.rawValue
        guard let preference = PhotoBackendPreference(rawValue: raw) else {
            throw CLIError.invalidValue(option: "--backend", value: raw, expected: "auto, perceptual or neural")
        }
        let store = try ModelStore(configuration: .fromEnvironment())
        let feature = PhotoSimilarityFeature(cacheDirectory: a.string("cache") ?? PhotoSimilarityFeature.defaultCacheDirectory(),
                                             neural: EfficientNetBackendLoader(store: store))
        await feature.select(preference, revision: 1)
        if preference == .neural, case .perceptual(_, let reason) = feature.capability {
            throw CLIError.io("neural backend unavailable: \(reason)")
        }
        return feature
    }

    /// Describes `paths` in parallel with a progress bar; failures go to stderr, one line each.
    static func scan(_ paths: [String], service: PhotoSimilarityService, threads: Int) -> [Result<PhotoFacts, PhotosError>] {
        let bar = ProgressBar(label: "decoding")
        let results = service.facts(for: paths, threads: threads) { done, total in bar.updateCount(done: done, total: total) }
        bar.finishCount()
        reportFailures(results.compactMap { if case .failure(let e) = $0 { e } else { nil } })
        return results
    }

    static func reportFailures(_ failures: [PhotosError]) {
        for f in failures { FileHandle.standardError.write(Data("ondevice: skipped \(f)\n".utf8)) }
    }

    static func absolute(_ path: String) -> String { URL(fileURLWithPath: path).standardizedFileURL.path }
}

extension ProgressBar {
    /// Draws `done/total` items (photos decoded) on the bar's line.
    func updateCount(done: Int, total: Int) {
        guard enabled, total > 0 else { return }
        let width = 30
        let filled = Int(Double(done) / Double(total) * Double(width))
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        let line = "\r\(label ?? "") \(bar) \(done)/\(total)\u{1B}[K"
        FileHandle.standardError.write(Data(line.utf8))
    }

    /// Ends the count line.
    func finishCount() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\n".utf8))
    }
}
