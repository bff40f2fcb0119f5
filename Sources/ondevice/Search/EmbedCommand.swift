import CLISupport
import Foundation
import OnDevice

/// `ondevice embed TEXT|--file F`: embeddings of a text, or of each line of a file, through the
/// public API (`embeddings`; `--model` a catalog id or a path).
enum EmbedCommand {
    static func run(_ args: ArraySlice<String>) async throws {
        let a = try Arguments(args, options: ["model", "file", "task", "prefix", "overflow", "threads"], flags: ["json"])
        var options = EmbedOptions()
        if let task = a.string("task") {
            switch task {
            case "query": options.purpose = .query
            case "document": options.purpose = .document
            default: throw CLIError.invalidValue(option: "--task", value: task, expected: "query or document")
            }
        }
        if a.string("task") != nil && a.string("prefix") != nil { throw CLIError.conflicting("--task", "--prefix") }
        options.prefix = a.string("prefix")
        if let overflow = a.string("overflow") {
            switch overflow {
            case "truncate": options.overflow = .truncate
            case "chunk": options.overflow = .chunk
            case "fail": options.overflow = .refuse
            default: throw CLIError.invalidValue(option: "--overflow", value: overflow, expected: "truncate, chunk or fail")
            }
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
        var configuration = OnDeviceAI.Configuration()
        configuration.threads = try a.int("threads")
        if let model = a.string("model") { configuration.embeddingModel = model }
        let result = try await OnDeviceAI(configuration: configuration).embeddings(texts, options: options)
        for (i, e) in result.embeddings.enumerated() {
            switch e.overflow {
            case let .truncated(tokens, limit)?: IndexCommand.note("input \(i + 1) has \(tokens) tokens; embedded its first \(limit)")
            case let .chunked(tokens, windows)?: IndexCommand.note("input \(i + 1) has \(tokens) tokens; embedded as \(windows) windows")
            case nil: break
            }
        }
        for (i, e) in result.embeddings.enumerated() {
            let tokens = e.tokenSequences.flatMap { $0 }
            if a.has("json") {
                try printJSON([
                    "index": i, "model": result.model, "dimension": e.vector.count,
                    "embedding": e.vector.map(Double.init), "tokens": tokens,
                ])
            } else {
                let head = e.vector.prefix(6).map { String(format: "%.5f", $0) }.joined(separator: ", ")
                print("\(i + 1): \(e.vector.count) dims, \(tokens.count) tokens: [\(head), …]")
            }
        }
    }
}
