import Foundation
import Retrieval

/// `ondevice embed TEXT|--file F`: embeddings of a text, or of each line of a file.
enum EmbedCommand {
    static func run(_ args: ArraySlice<String>) async throws {
        let a = try Arguments(args, options: ["model", "file", "task", "prefix", "overflow", "threads"], flags: ["json"])
        var options = EmbeddingOptions()
        if let task = a.string("task") {
            guard let t = EmbeddingTask(rawValue: task) else {
                throw CLIError.invalidValue(option: "--task", value: task, expected: "query or document")
            }
            options.task = t
        }
        if a.string("task") != nil && a.string("prefix") != nil { throw CLIError.conflicting("--task", "--prefix") }
        options.prefix = a.string("prefix")
        if let overflow = a.string("overflow") {
            guard let o = OverflowPolicy(rawValue: overflow) else {
                throw CLIError.invalidValue(option: "--overflow", value: overflow, expected: "truncate, chunk or fail")
            }
            options.overflow = o
        }
        let texts: [String]
        if let file = a.string("file") {
            guard a.positionals.isEmpty else { throw CLIError.conflicting("--file", "TEXT") }
            let content = file == "-" ? readTextArgument("-") : try String(contentsOfFile: file, encoding: .utf8)
            // One input per line; the newline ending the last line does not start another.
            var lines = content.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map(String.init)
            if lines.last == "" { lines.removeLast() }
            texts = lines
        } else {
            guard a.positionals.count == 1 else {
                throw a.positionals.isEmpty ? CLIError.missingArgument("TEXT (or --file F)") : CLIError.io("expected one TEXT argument (quote it)")
            }
            texts = [readTextArgument(a.positionals[0])]
        }
        let runtime = try await RuntimeModels.runtime()
        let lease = try await RuntimeModels.embedder(a.string("model") ?? EmbeddingModels.defaultId, threads: try a.int("threads"), runtime: runtime)
        let embedder = lease.model.embedder
        let result = try embedder.embed(texts, options: options)
        await lease.release()
        for event in result.events {
            switch event {
            case let .truncated(i, tokens, limit): EmbeddingModels.note("input \(i + 1) has \(tokens) tokens; embedded its first \(limit)")
            case let .chunked(i, tokens, windows): EmbeddingModels.note("input \(i + 1) has \(tokens) tokens; embedded as \(windows) windows")
            }
        }
        for (i, e) in result.embeddings.enumerated() {
            if a.has("json") {
                try printJSON([
                    "index": i, "model": embedder.identity.modelId, "dimension": e.vector.count,
                    "embedding": e.vector.map(Double.init), "tokens": e.sequences.flatMap { $0 }.map(Int.init),
                ])
            } else {
                let head = e.vector.prefix(6).map { String(format: "%.5f", $0) }.joined(separator: ", ")
                print("\(i + 1): \(e.vector.count) dims, \(e.sequences.reduce(0) { $0 + $1.count }) tokens: [\(head), …]")
            }
        }
    }
}
