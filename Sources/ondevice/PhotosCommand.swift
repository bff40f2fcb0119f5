import Foundation
import Imaging
import ModelStore
import OnDevice
import Photos
import Runtime

/// `ondevice photos index|similar|cull|search`: photo similarity, burst culling and text search
/// over a folder (`index --text` also reads each photo's text with the OCR models).
enum PhotosCommand {
    static let valued: Set<String> = ["in", "k", "threads", "backend", "gap", "cache", "images", "width", "height"]

    static func run(_ args: ArraySlice<String>) async throws {
        guard let sub = args.first else { throw CLIError.missingArgument("photos subcommand (index, similar, cull, search)") }
        let a = try Arguments(args.dropFirst(), options: valued, flags: ["json", "csv", "text", "faces", "ocr"])
        if sub == "search" { return try await search(a) }
        let feature = try await makeFeature(a)
        let threads = try a.int("threads") ?? ProcessInfo.processInfo.activeProcessorCount
        switch sub {
        case "index":
            guard let dir = a.positionals.first else { throw CLIError.missingArgument("DIR") }
            let paths = try PhotoFolder.imagePaths(in: dir)
            let results = scan(paths, service: feature.service, threads: threads)
            try feature.service.saveCache()
            let failed = results.filter { if case .failure = $0 { true } else { false } }.count
            let text = a.has("text") ? try await indexText(dir, a, threads: threads) : nil
            if a.has("json") {
                var report: [String: Any] = ["photos": paths.count - failed, "failed": failed, "backend": feature.capability.description]
                if let text {
                    report["text_read"] = text.read
                    report["label_model"] = text.labelModel ?? NSNull()
                    report["embedding_model"] = text.embeddingModel ?? NSNull()
                }
                try printJSON(report)
            } else {
                print("indexed \(paths.count - failed) photo\(paths.count - failed == 1 ? "" : "s")"
                      + (failed > 0 ? ", \(failed) failed" : "") + "; backend: \(feature.capability)"
                      + (text.map { "; text read in \($0.read)" + ($0.labelModel.map { ", labels by \($0)" } ?? "")
                          + ($0.embeddingModel.map { ", search by meaning with \($0)" } ?? ", search by words only") } ?? ""))
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
            if a.has("ocr") { try PhotosBenchCommand.ocr(a, reader: try await textReader()) }
        default:
            throw CLIError.unknownCommand("photos \(sub)")
        }
    }

    /// Reads the text of new or changed photos into the text index, through the public API
    /// (`PhotoLibrary.indexText`); returns how many were read and why a model was not used.
    static func indexText(_ dir: String, _ a: Arguments, threads: Int) async throws -> PhotoTextIndexing {
        let library = try await textLibrary(a, threads: threads)
        let bar = ProgressBar(label: "reading text")
        let result = try await library.indexText(directory: URL(fileURLWithPath: dir)) { done, total in bar.updateCount(done: done, total: total) }
        bar.finishCount()
        for line in result.skipped { FileHandle.standardError.write(Data("ondevice: skipped \(line)\n".utf8)) }
        for note in result.notes { FileHandle.standardError.write(Data("ondevice: \(note)\n".utf8)) }
        return result
    }

    /// `photos search TEXT [--in DIR] [--k N]`: indexed photos whose text and labels match TEXT,
    /// by words and, when the index has embeddings, by meaning.
    static func search(_ a: Arguments) async throws {
        guard let query = a.positionals.first else { throw CLIError.missingArgument("TEXT") }
        let library = try await textLibrary(a, threads: try a.int("threads"))
        let result = try await library.searchText(query, in: a.string("in").map { URL(fileURLWithPath: $0) }, count: try a.int("k") ?? 10)
        if a.has("json") {
            try printJSON([
                "query": query, "embedding_model": result.embeddingModel ?? NSNull(), "note": result.note ?? NSNull(),
                "results": result.matches.map {
                    ["path": $0.url.path, "score": $0.score, "text": $0.text, "labels": $0.labels, "word_score": $0.wordScore,
                     "similarity": $0.similarity.map(Double.init) ?? NSNull()] as [String: Any]
                },
            ])
            return
        }
        if let note = result.note { FileHandle.standardError.write(Data("ondevice: \(note)\n".utf8)) }
        for match in result.matches {
            let shown = ([match.text.replacingOccurrences(of: "\n", with: " | ")] + match.labels.map { "[\($0)]" })
                .filter { !$0.isEmpty }.joined(separator: " ")
            let similarity = match.similarity.map { String(format: "%.3f", $0) } ?? "-"
            print(String(format: "%.4f\t%@\t%@\t%@", match.score, similarity, match.url.path, shown))
        }
    }

    /// The three PP-OCR models from the store, for the bench (which times reading, not loading).
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

    /// The public API's photo library over `--cache` (default the photos cache), with `--threads`.
    static func textLibrary(_ a: Arguments, threads: Int?) async throws -> PhotoLibrary {
        var configuration = OnDeviceAI.Configuration()
        configuration.threads = threads
        let cache = a.string("cache").map { URL(fileURLWithPath: $0) }
        return try await OnDeviceAI(configuration: configuration).photoLibrary(cacheDirectory: cache)
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
