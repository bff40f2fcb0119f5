import Foundation
import ModelStore
import Models
import Retrieval

/// Resolving embedding models and the index directory for `embed`, `index`, `search` and `ask`.
enum EmbeddingModels {
    static let defaultId = "all-minilm-l6-v2"

    /// Loads `argument`: a catalog id (installed, or pulled on first use) or a path to a model
    /// directory or `.gguf` file. For catalog models the identity's revision is the pinned
    /// SHA-256 of the weights file.
    static func load(_ argument: String, threads: Int?) async throws -> Embedder {
        let lease = try await RuntimeModels.embedder(argument, threads: threads, runtime: try await RuntimeModels.runtime())
        RuntimeModels.held.withLock { $0.append(lease) }
        return lease.model.embedder
    }

    /// Loads `argument` directly, outside the runtime (benchmarks that time the load itself).
    static func loadDirectly(_ argument: String, threads: Int?, precision: EncoderPrecision = .int16) async throws -> Embedder {
        if FileManager.default.fileExists(atPath: argument) {
            return try Embedder.load(path: argument, threads: threads, precision: precision)
        }
        let installed = try await ModelLocator.installedModel(argument)
        let weights = installed.entry.files.first { $0.name.hasSuffix(".gguf") || $0.name.hasSuffix(".safetensors") }
        let path: String
        if let weights, weights.name.hasSuffix(".gguf") {
            path = installed.directory + "/" + weights.name
        } else {
            path = installed.directory
        }
        return try Embedder.load(path: path, modelId: installed.id, revision: weights?.sha256, threads: threads, precision: precision)
    }

    /// The embedder an index command should use, or nil for lexical search, with the reason
    /// printed: `--lexical`, or a model that cannot be had (not installed and not downloadable).
    /// Without `--model`, an index that already has a backend keeps its model.
    static func forIndex(_ a: Arguments, index: DocumentIndex) async throws -> Embedder? {
        if a.has("lexical") {
            if a.string("model") != nil { throw CLIError.conflicting("--lexical", "--model") }
            return nil
        }
        let stored = await index.backend?.modelId
        let id = a.string("model") ?? stored ?? defaultId
        do {
            return try await load(id, threads: try a.int("threads"))
        } catch let error as RetrievalError {
            throw error
        } catch {
            note("embedding model '\(id)' is not available (\(error)); searching lexically (BM25)")
            return nil
        }
    }

    /// The index `ask` grounds its answers in (`--index`, `--chunk-tokens`, `--overlap`,
    /// `--threads`), opened directly until RAG is in the public API.
    static func openIndex(_ a: Arguments, readOnly: Bool) throws -> DocumentIndex {
        var options = IndexOptions()
        options.chunking.tokens = try a.int("chunk-tokens") ?? options.chunking.tokens
        options.chunking.overlap = try a.int("overlap") ?? min(options.chunking.overlap, options.chunking.tokens / 4)
        options.threads = try a.int("threads")
        options.approximateThreshold = .max  // one query per process: the exact scan is cheaper than building HNSW
        return try DocumentIndex(directory: indexDirectory(a), embedder: nil, options: options, readOnly: readOnly, onEvent: report)
    }

    /// `--index DIR`, else `$ONDEVICE_INDEX`, else `$XDG_DATA_HOME/ondevice/index`, else
    /// `~/.local/share/ondevice/index`.
    static func indexDirectory(_ a: Arguments) -> String {
        if let dir = a.string("index") { return dir }
        let env = ProcessInfo.processInfo.environment
        if let dir = env["ONDEVICE_INDEX"], !dir.isEmpty { return dir }
        if let data = env["XDG_DATA_HOME"], data.hasPrefix("/") { return data + "/ondevice/index" }
        let home = env["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.local/share/ondevice/index"
    }

    /// Prints what the index did that the user should know (recovery, fallback, embedding).
    static func report(_ event: IndexEvent) {
        switch event {
        case .recovered(let bytes): note("the index had a torn final write (\(bytes) bytes) from an interrupted run; it was cut off")
        case let .backendChanged(from, to): note("index vectors switched from \(from.map(\.description) ?? "none") to \(to.map(\.description) ?? "none")")
        case .lexicalFallback(let reason): note("lexical search (BM25): \(reason)")
        case .approximateIndexBuilt(let n, let s): note(String(format: "built the HNSW graph over %d vectors in %.1f s", n, s))
        case .embedded, .compacted: break
        }
    }

    static func note(_ message: String) {
        FileHandle.standardError.write(Data("ondevice: \(message)\n".utf8))
    }
}
