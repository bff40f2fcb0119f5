import Foundation
import Retrieval

/// `ondevice index add|remove|list|reembed|compact`: the document index behind `search` and
/// `ask`.
enum IndexCommand {
    static let valued: Set<String> = ["index", "model", "threads", "chunk-tokens", "overlap"]

    static func run(_ args: ArraySlice<String>) async throws {
        guard let sub = args.first else { throw CLIError.missingArgument("index subcommand (add, remove, list, reembed, compact)") }
        let a = try Arguments(args.dropFirst(), options: valued, flags: ["lexical", "json"])
        let index = try open(a, readOnly: sub == "list")
        switch sub {
        case "add":
            guard !a.positionals.isEmpty else { throw CLIError.missingArgument("PATH...") }
            await index.use(try await EmbeddingModels.forIndex(a, index: index))
            try await add(a.positionals, to: index)
        case "remove":
            guard !a.positionals.isEmpty else { throw CLIError.missingArgument("ID...") }
            try await index.remove(a.positionals)
        case "list":
            for id in await index.documentIds {
                let chunks = await index.chunks(of: id).count
                if a.has("json") { try printJSON(["id": id, "chunks": chunks]) } else { print("\(id)\t\(chunks) chunks") }
            }
            let backend = await index.backend.map(\.description) ?? "none (lexical only)"
            if !a.has("json") { print("\(await index.documentCount) documents, \(await index.chunkCount) chunks; vectors: \(backend)") }
        case "reembed":
            guard let embedder = try await EmbeddingModels.forIndex(a, index: index) else { throw RetrievalError.noEmbeddingModel }
            await index.use(embedder)
            try await index.reembed()
            print("re-embedded \(await index.chunkCount) chunks with \(embedder.identity)")
        case "compact":
            try await index.compact()
        default:
            throw CLIError.unknownCommand("index \(sub)")
        }
    }

    static func open(_ a: Arguments, readOnly: Bool) throws -> DocumentIndex {
        var options = IndexOptions()
        options.chunking.tokens = try a.int("chunk-tokens") ?? options.chunking.tokens
        options.chunking.overlap = try a.int("overlap") ?? min(options.chunking.overlap, options.chunking.tokens / 4)
        options.threads = try a.int("threads")
        // The HNSW graph lives in memory and a command lives for one query: building it costs
        // more than the exact scan it would save (100k vectors: ~1 min vs ~15 ms), so the CLI
        // scans. Long-lived processes (apps, `serve`) keep the default threshold.
        options.approximateThreshold = .max
        return try DocumentIndex(directory: EmbeddingModels.indexDirectory(a), embedder: nil, options: options,
                                 readOnly: readOnly, onEvent: EmbeddingModels.report)
    }

    /// Adds files (directories recursively; files that are not UTF-8 text are skipped), one
    /// journal record per file so an interrupted run keeps every file it finished. A file's
    /// id is its absolute path; its metadata holds the path, size and modification time.
    static func add(_ paths: [String], to index: DocumentIndex) async throws {
        var added = 0, skipped = 0
        for file in try files(paths) {
            guard let data = FileManager.default.contents(atPath: file), let text = String(data: data, encoding: .utf8) else {
                skipped += 1
                continue
            }
            let attributes = try? FileManager.default.attributesOfItem(atPath: file)
            var metadata = ["path": file, "bytes": String(data.count)]
            if let date = attributes?[.modificationDate] as? Date { metadata["modified"] = ISO8601DateFormatter().string(from: date) }
            try await index.add([IndexDocument(id: file, text: text, metadata: metadata)])
            added += 1
        }
        let mode = await index.capability
        print("indexed \(added) file\(added == 1 ? "" : "s")\(skipped > 0 ? " (\(skipped) not UTF-8 text, skipped)" : ""); "
              + "\(await index.documentCount) documents, \(await index.chunkCount) chunks; search: \(mode)")
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
}
