import CLISupport
import Foundation
import OnDevice

/// `ondevice photos index|similar|cull|search`: photo similarity, burst culling and text search
/// over a folder (`index --text` also reads each photo's text with the OCR models), through the
/// public API's `PhotoLibrary`. (`Benchmarks photos` times the engine directly.)
enum PhotosCommand {
    static let valued: Set<String> = ["in", "k", "threads", "backend", "gap", "cache"]

    static func run(_ args: ArraySlice<String>) async throws {
        guard let sub = args.first else { throw CLIError.missingArgument("photos subcommand (index, similar, cull, search)") }
        if sub == "bench" { throw CLIError.io("'photos bench' times the engine itself, so it lives in the Benchmarks executable: swift run -c release Benchmarks photos") }
        let a = try Arguments(args.dropFirst(), options: valued, flags: ["json", "csv", "text"])
        if sub == "search" { return try await search(a) }
        guard ["index", "similar", "cull"].contains(sub) else { throw CLIError.unknownCommand("photos \(sub)") }
        let threads = try a.int("threads") ?? ProcessInfo.processInfo.activeProcessorCount
        let library = try await library(a, threads: threads)
        switch sub {
        case "index":
            guard let dir = a.positionals.first else { throw CLIError.missingArgument("DIR") }
            let result = try await scan(dir, library)
            let text = a.has("text") ? try await indexText(dir, library) : nil
            if a.has("json") {
                var report: [String: Any] = ["photos": result.indexed, "failed": result.skipped.count, "backend": result.backend.description]
                if let text {
                    report["text_read"] = text.read
                    report["label_model"] = text.labelModel ?? NSNull()
                    report["embedding_model"] = text.embeddingModel ?? NSNull()
                }
                try printJSON(report)
            } else {
                print("indexed \(result.indexed) photo\(result.indexed == 1 ? "" : "s")"
                      + (result.skipped.isEmpty ? "" : ", \(result.skipped.count) failed") + "; backend: \(result.backend)"
                      + (text.map { "; text read in \($0.read)" + ($0.labelModel.map { ", labels by \($0)" } ?? "")
                          + ($0.embeddingModel.map { ", search by meaning with \($0)" } ?? ", search by words only") } ?? ""))
            }
        case "similar":
            guard let image = a.positionals.first else { throw CLIError.missingArgument("IMG") }
            let dir = try a.require("in")
            let k = try a.int("k") ?? 10
            _ = try await scan(dir, library)  // describes the folder with a progress bar and names what it skips
            let nearest = try await library.similar(to: URL(fileURLWithPath: image), in: URL(fileURLWithPath: dir), count: k)
            if a.has("json") {
                try printJSON(["backend": library.backend.description,
                               "results": nearest.map { ["path": $0.url.path, "similarity": Double($0.similarity)] }])
            } else {
                for n in nearest { print(String(format: "%.4f\t%@", n.similarity, n.url.path)) }
            }
        default:
            guard let dir = a.positionals.first else { throw CLIError.missingArgument("DIR") }
            guard !(a.has("json") && a.has("csv")) else { throw CLIError.conflicting("--json", "--csv") }
            let bar = ProgressBar(label: "decoding")
            // Bursts with faces rank by face sharpness and open eyes when both face models are installed.
            let result = try await library.cull(directory: URL(fileURLWithPath: dir), maxGapSeconds: try a.float("gap").map(Double.init) ?? 2.0) {
                done, total in bar.updateCount(done: done, total: total)
            }
            bar.finishCount()
            reportFailures(result.skipped)
            if a.has("json") { try printJSON(PhotosOutput.json(result)) } else if a.has("csv") { print(PhotosOutput.csv(result), terminator: "") } else { print(PhotosOutput.text(result), terminator: "") }
        }
    }

    /// The public API's photo library over `--cache` (default the photos cache), with
    /// `--threads` and the backend `--backend` (or `auto`) resolves to.
    static func library(_ a: Arguments, threads: Int?) async throws -> PhotoLibrary {
        var configuration = OnDeviceAI.Configuration()
        configuration.threads = threads
        let cache = a.string("cache").map { URL(fileURLWithPath: $0) }
        let library = try await OnDeviceAI(configuration: configuration).photoLibrary(cacheDirectory: cache)
        let raw = a.string("backend") ?? PhotoBackendChoice.automatic.rawValue
        guard let choice = PhotoBackendChoice(rawValue: raw) else {
            throw CLIError.invalidValue(option: "--backend", value: raw, expected: "auto, perceptual or neural")
        }
        try await library.use(choice)
        if choice == .neural, case .perceptual(let reason) = library.backend { throw CLIError.io("neural backend unavailable: \(reason)") }
        return library
    }

    /// Describes the photos under `dir` into the cache with a progress bar; failures go to
    /// stderr, one line each.
    static func scan(_ dir: String, _ library: PhotoLibrary) async throws -> PhotoIndexing {
        let bar = ProgressBar(label: "decoding")
        let result = try await library.index(directory: URL(fileURLWithPath: dir)) { done, total in bar.updateCount(done: done, total: total) }
        bar.finishCount()
        reportFailures(result.skipped)
        return result
    }

    /// Reads the text of new or changed photos into the text index, through the public API
    /// (`PhotoLibrary.indexText`); returns how many were read and why a model was not used.
    static func indexText(_ dir: String, _ library: PhotoLibrary) async throws -> PhotoTextIndexing {
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

    /// The public API's photo library over `--cache` (default the photos cache), with `--threads`.
    static func textLibrary(_ a: Arguments, threads: Int?) async throws -> PhotoLibrary {
        var configuration = OnDeviceAI.Configuration()
        configuration.threads = threads
        let cache = a.string("cache").map { URL(fileURLWithPath: $0) }
        return try await OnDeviceAI(configuration: configuration).photoLibrary(cacheDirectory: cache)
    }

    static func reportFailures(_ failures: [String]) {
        for f in failures { FileHandle.standardError.write(Data("ondevice: skipped \(f)\n".utf8)) }
    }

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
