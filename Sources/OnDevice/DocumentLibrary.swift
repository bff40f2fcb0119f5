import Foundation
import Retrieval
import Runtime

/// A persistent document index for search by meaning, with search by words (BM25) when no
/// embedding model can be had, said so, never silently. Documents are cut into overlapping
/// passages and embedded by the instance's embedding model, leased from the runtime for each
/// operation; every change is synced to an append-only journal before the call returns, so a
/// process killed at any point leaves a usable index. The vectors of two embedding models are
/// never mixed: a library opened with another model refuses semantic work until `reembed()`.
///
/// ```swift
/// let library = try await ai.documentLibrary(at: URL(fileURLWithPath: "notes-index"))
/// try await library.add([LibraryDocument(id: "everest", text: "Mount Everest is the highest mountain.")])
/// let found = try await library.search("Which peak is the tallest?", count: 3)
/// ```
public final class DocumentLibrary: Sendable {
    /// How a library is opened.
    public struct Options: Sendable, Equatable {
        /// Tokens per passage and the overlap between neighbours (nil: a quarter of a passage at
        /// most, the index's default).
        public var passageTokens = IndexOptions().chunking.tokens
        public var passageOverlap: Int?
        /// The embedding model (catalog id or path); nil: the model the index's vectors came
        /// from when it has any, else the instance's `embeddingModel`.
        public var embeddingModel: String?
        /// Words only: no embedding model is loaded.
        public var lexicalOnly = false
        /// Never writes (another process may be writing); the default opens for writing and
        /// holds the index's lock until the library is released.
        public var readOnly = false
        /// Past this many vectors a search walks an HNSW graph built in memory instead of scanning
        /// every vector. A one-shot process gains nothing from building it (`Int.max`).
        public var approximateSearchThreshold = IndexOptions().approximateThreshold

        public init() {}
    }

    let index: DocumentIndex
    let ai: OnDeviceAI
    let options: Options
    let notice: @Sendable (String) -> Void

    init(index: DocumentIndex, ai: OnDeviceAI, options: Options, notice: @escaping @Sendable (String) -> Void) {
        self.index = index
        self.ai = ai
        self.options = options
        self.notice = notice
    }

    /// Adds or replaces documents, embedding their passages now.
    public func add(_ documents: [LibraryDocument]) async throws {
        let documents = documents.map { IndexDocument(id: $0.id, text: $0.text, metadata: $0.metadata) }
        try await withEmbedder { index throws(RetrievalError) in try index.add(documents) }
    }

    /// Removes documents; an unknown id is an error and nothing is removed.
    public func remove(_ ids: [String]) async throws {
        try await run { try await self.index.remove(ids) }
    }

    /// Every indexed document, by id.
    public func documents() async -> [LibraryDocumentSummary] {
        var out: [LibraryDocumentSummary] = []
        for id in await index.documentIds { out.append(LibraryDocumentSummary(id: id, passages: await index.chunks(of: id).count)) }
        return out
    }

    /// Documents in the index.
    public var documentCount: Int { get async { await index.documentCount } }

    /// Passages in the index.
    public var passageCount: Int { get async { await index.chunkCount } }

    /// The backend the stored vectors belong to, or nil when the index holds none.
    public var vectorModel: String? { get async { await index.backend.map(\.description) } }

    /// The `count` passages that best answer `query`: by meaning when an embedding model is to
    /// be had (the result says which), else by words and why.
    public func search(_ query: String, count: Int = 5) async throws -> LibrarySearchResult {
        guard count > 0 else { throw OnDeviceError.invalidArgument("count \(count): expected at least 1") }
        let lexical = options.lexicalOnly
        let results = try await withEmbedder { index throws(RetrievalError) in
            lexical ? try index.lexicalSearch(query, k: count) : try index.search(query, k: count)
        }
        let method: LibrarySearchMethod = switch results.capability {
        case .semantic(let id):
            .semantic(model: id.modelId, revision: id.revision, preprocessing: id.preprocessing, dimension: id.dimension,
                      approximate: results.method == .approximate)
        case .lexical(let reason): .lexical(reason: reason)
        }
        let passages = results.hits.map {
            LibraryPassage(documentId: $0.documentId, ordinal: $0.chunk.ordinal, score: $0.score, text: $0.text, metadata: $0.metadata)
        }
        return LibrarySearchResult(method: method, passages: passages)
    }

    /// Replaces every vector with the embedding model's (the way to move an index to another
    /// model); returns the backend now in use.
    @discardableResult
    public func reembed() async throws -> String {
        try await withEmbedder(required: true) { index throws(RetrievalError) in
            try index.reembed()
            return index.backend?.description ?? ""
        }
    }

    /// Rewrites the journal with only the live records.
    public func compact() async throws {
        try await run { try await self.index.compact() }
    }

    // MARK: Internals

    /// Runs `body` on the index with the embedding model leased for it, or with none (words
    /// only) when asked or when the model cannot be had, which the notice reports.
    private func withEmbedder<T: Sendable>(required: Bool = false,
                                           _ body: @escaping @Sendable (isolated DocumentIndex) throws(RetrievalError) -> T) async throws -> T {
        var lease: EngineLease<ResidentEmbedder>?
        if !options.lexicalOnly {
            let id = if let model = options.embeddingModel { model } else { await index.backend?.modelId ?? ai.configuration.embeddingModel }
            do { lease = try await ai.leaseModel(ResidentEmbedder.self, id) } catch let error as OnDeviceError where !required {
                if error.code == .cancelled { throw error }
                notice("embedding model '\(id)' is not available (\(error.message)); searching lexically (BM25)")
            }
        } else if required {
            throw OnDeviceError.invalidArgument("re-embedding needs an embedding model, and the library is words-only")
        }
        let embedder = lease?.model.embedder
        do {
            let result = try await run { try await self.index.using(embedder, body) }
            await lease?.release()
            return result
        } catch {
            await lease?.release()
            throw error
        }
    }

    private func run<T>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch let error as RetrievalError { throw Self.mapped(error) }
    }

    static func mapped(_ error: RetrievalError) -> OnDeviceError {
        switch error {
        case .cancelled: .cancelled
        case .invalidArgument, .unknownDocument, .inputTooLong: OnDeviceError(code: .invalidArgument, message: error.description, cause: error)
        case .noEmbeddingModel: OnDeviceError(code: .invalidArgument, message: error.description, cause: error)
        default: OnDeviceError(code: .engine, message: error.description, cause: error)
        }
    }
}

extension OnDeviceAI {
    /// Opens (creating it unless read-only) the document library in `directory` (nil:
    /// `ONDEVICE_INDEX`, else `$XDG_DATA_HOME/ondevice/index`). `notice` hears what the user
    /// should know: an interrupted write cut off, vectors moved to another model, a fallback to
    /// words.
    public func documentLibrary(at directory: URL? = nil, options: DocumentLibrary.Options = DocumentLibrary.Options(),
                                notice: @escaping @Sendable (String) -> Void = { _ in }) async throws -> DocumentLibrary {
        var indexOptions = IndexOptions()
        indexOptions.chunking.tokens = options.passageTokens
        indexOptions.chunking.overlap = options.passageOverlap ?? min(indexOptions.chunking.overlap, options.passageTokens / 4)
        indexOptions.threads = modelThreads
        indexOptions.approximateThreshold = options.approximateSearchThreshold
        let path = directory?.path ?? DocumentLibrary.defaultDirectory()
        do {
            let index = try DocumentIndex(directory: path, embedder: nil, options: indexOptions, readOnly: options.readOnly,
                                          onEvent: { event in DocumentLibrary.describe(event).map(notice) })
            return DocumentLibrary(index: index, ai: self, options: options, notice: notice)
        } catch {
            throw DocumentLibrary.mapped(error)
        }
    }
}

extension DocumentLibrary {
    /// `ONDEVICE_INDEX`, else `$XDG_DATA_HOME/ondevice/index`, else `~/.local/share/ondevice/index`.
    public static func defaultDirectory() -> String {
        let env = ProcessInfo.processInfo.environment
        if let dir = env["ONDEVICE_INDEX"], !dir.isEmpty { return dir }
        if let data = env["XDG_DATA_HOME"], data.hasPrefix("/") { return data + "/ondevice/index" }
        let home = env["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.local/share/ondevice/index"
    }

    static func describe(_ event: IndexEvent) -> String? {
        switch event {
        case .recovered(let bytes): "the index had a torn final write (\(bytes) bytes) from an interrupted run; it was cut off"
        case let .backendChanged(from, to): "index vectors switched from \(from.map(\.description) ?? "none") to \(to.map(\.description) ?? "none")"
        case .lexicalFallback(let reason): "lexical search (BM25): \(reason)"
        case .approximateIndexBuilt(let n, let s): String(format: "built the HNSW graph over %d vectors in %.1f s", n, s)
        case .embedded, .compacted: nil
        }
    }
}
