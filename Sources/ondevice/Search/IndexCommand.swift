import CLISupport
import Foundation
import OnDevice

/// `ondevice index add|remove|list|reembed|compact`: the document library behind `search` and
/// `ask`, through the public API (`DocumentLibrary`).
enum IndexCommand {
    static let valued: Set<String> = ["index", "model", "threads", "chunk-tokens", "overlap"]

    static func run(_ args: ArraySlice<String>) async throws {
        guard let sub = args.first else { throw CLIError.missingArgument("index subcommand (add, remove, list, reembed, compact)") }
        let a = try Arguments(args.dropFirst(), options: valued, flags: ["lexical", "json"])
        guard ["add", "remove", "list", "reembed", "compact"].contains(sub) else { throw CLIError.unknownCommand("index \(sub)") }
        let library = try await open(a, readOnly: sub == "list")
        switch sub {
        case "add":
            guard !a.positionals.isEmpty else { throw CLIError.missingArgument("PATH...") }
            try await add(a.positionals, to: library)
        case "remove":
            guard !a.positionals.isEmpty else { throw CLIError.missingArgument("ID...") }
            try await library.remove(a.positionals)
        case "list":
            let documents = await library.documents()
            for document in documents {
                if a.has("json") { try printJSON(["id": document.id, "chunks": document.passages]) } else { print("\(document.id)\t\(document.passages) chunks") }
            }
            let backend = await library.vectorModel ?? "none (lexical only)"
            if !a.has("json") { print("\(documents.count) documents, \(await library.passageCount) chunks; vectors: \(backend)") }
        case "reembed":
            let backend = try await library.reembed()
            print("re-embedded \(await library.passageCount) chunks with \(backend)")
        default:
            try await library.compact()
        }
    }

    /// The library `--index` names (else the default directory), with `--model`, `--lexical`,
    /// `--threads`, `--chunk-tokens` and `--overlap`.
    static func open(_ a: Arguments, readOnly: Bool, contextLength: Int? = nil) async throws -> DocumentLibrary {
        if a.has("lexical") && a.string("model") != nil { throw CLIError.conflicting("--lexical", "--model") }
        var options = DocumentLibrary.Options()
        options.passageTokens = try a.int("chunk-tokens") ?? options.passageTokens
        options.passageOverlap = try a.int("overlap")
        options.embeddingModel = a.string("model")
        options.lexicalOnly = a.has("lexical")
        options.readOnly = readOnly
        // The HNSW graph lives in memory and a command lives for one query: building it costs
        // more than the exact scan it would save (100k vectors: ~1 min vs ~15 ms), so the CLI
        // scans. Long-lived processes (apps, `serve`) keep the default threshold.
        options.approximateSearchThreshold = .max
        var configuration = OnDeviceAI.Configuration()
        configuration.threads = try a.int("threads")
        configuration.contextLength = contextLength
        return try await OnDeviceAI(configuration: configuration).documentLibrary(
            at: a.string("index").map { URL(fileURLWithPath: $0) }, options: options, notice: note)
    }

    /// Adds files (directories recursively; files that are not UTF-8 text are skipped), one
    /// journal record per file so an interrupted run keeps every file it finished. A file's
    /// id is its absolute path; its metadata holds the path, size and modification time.
    static func add(_ paths: [String], to library: DocumentLibrary) async throws {
        var added = 0, skipped = 0
        for file in try files(paths) {
            guard let data = FileManager.default.contents(atPath: file), let text = String(data: data, encoding: .utf8) else {
                skipped += 1
                continue
            }
            let attributes = try? FileManager.default.attributesOfItem(atPath: file)
            var metadata = ["path": file, "bytes": String(data.count)]
            if let date = attributes?[.modificationDate] as? Date { metadata["modified"] = ISO8601DateFormatter().string(from: date) }
            try await library.add([LibraryDocument(id: file, text: text, metadata: metadata)])
            added += 1
        }
        let documents = await library.documentCount
        let search = await library.vectorModel.map { "semantic (\($0))" } ?? "lexical BM25"
        print("indexed \(added) file\(added == 1 ? "" : "s")\(skipped > 0 ? " (\(skipped) not UTF-8 text, skipped)" : ""); "
              + "\(documents) documents, \(await library.passageCount) chunks; search: \(search)")
    }

    static func files(_ paths: [String]) throws -> [String] {
        var out: [String] = []
        for p in paths {
            let path = URL(fileURLWithPath: p).standardizedFileURL.path
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { throw CLIError.io("\(p): no such file") }
            if !isDirectory.boolValue {
                out.append(path)
                continue
            }
            let walker = FileManager.default.enumerator(atPath: path)
            var found: [String] = []
            while let relative = walker?.nextObject() as? String {
                let full = path + "/" + relative
                var dir: ObjCBool = false
                if (relative as NSString).lastPathComponent.hasPrefix(".") { continue }
                if FileManager.default.fileExists(atPath: full, isDirectory: &dir), !dir.boolValue { found.append(full) }
            }
            out += found.sorted()
        }
        return out
    }

    /// What the library says the user should know, on stderr.
    static func note(_ message: String) {
        FileHandle.standardError.write(Data("ondevice: \(message)\n".utf8))
    }
}
