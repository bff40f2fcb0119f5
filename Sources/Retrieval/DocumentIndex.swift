import Foundation

/// A persistent index of documents for semantic and lexical search.
///
/// Documents are added, replaced and removed by id with string metadata; each is cut into
/// overlapping token chunks, and each chunk embedded by the index's `Embedder` when it has one.
/// Every change is a record in an append-only, checksummed journal (`IndexJournal`), synced
/// before the call returns, so a process killed at any point leaves a usable index.
///
/// Backend rule: the index holds vectors of at most one backend (`backend`). An embedder with
/// another identity is refused (`RetrievalError.backendMismatch`) until `reembed()` replaces
/// every vector; documents added without an embedder wait, unembedded, and are caught up by the
/// next semantic operation. With no embedder, `search` is BM25 and says so
/// (`SearchCapability.lexical`): never a silent downgrade, never two backends in one ranking.
package actor DocumentIndex {
    package nonisolated let directory: String
    package nonisolated let readOnly: Bool
    package nonisolated let options: IndexOptions
    /// The model that embeds documents and queries; nil for a lexical-only index.
    package private(set) var embedder: Embedder?
    let journal: IndexJournal
    private let lock: IndexLock?
    private let onEvent: @Sendable (IndexEvent) -> Void
    var contents = IndexContents()
    var structures = SearchStructures()

    /// Opens (a writer creates) the index in `directory`.
    ///
    /// - Parameters:
    ///   - readOnly: never writes; a torn final record (another process mid-write) is skipped,
    ///     and catch-up embeddings stay in memory. Writers hold `index.lock` while open.
    ///   - onEvent: recovery, embedding, fallback and compaction notices.
    package init(directory: String, embedder: Embedder?, options: IndexOptions = IndexOptions(), readOnly: Bool = false,
                 lockTimeout: Double = 10, onEvent: @escaping @Sendable (IndexEvent) -> Void = { _ in }) throws(RetrievalError) {
        try options.chunking.validate()
        if !readOnly {
            do { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) } catch {
                throw .io(path: directory, operation: "create directory", errno: EACCES)
            }
        }
        self.directory = directory
        self.readOnly = readOnly
        self.options = options
        self.embedder = embedder
        self.onEvent = onEvent
        lock = readOnly ? nil : try IndexLock(path: directory + "/index.lock", timeout: lockTimeout)
        let (journal, replay) = try IndexJournal.open(path: directory + "/index.journal", readOnly: readOnly)
        self.journal = journal
        var contents = IndexContents()
        for record in replay.records { contents.apply(record) }
        self.contents = contents
        if replay.tornBytes > 0 { onEvent(.recovered(tornBytes: replay.tornBytes)) }
    }

    /// Swaps the embedding backend behind the index (nil: lexical only). Nothing is
    /// re-embedded here: an embedder of another backend is refused by the next semantic call
    /// until `reembed()`.
    package func use(_ embedder: Embedder?) {
        self.embedder = embedder
    }

    /// Runs `body` with `embedder` behind the index and puts the previous one back, in one turn
    /// of the actor: an owner that leases the model per operation (the public API) never leaves
    /// a released model in the index, and two operations never see each other's.
    package func using<T: Sendable>(_ embedder: Embedder?,
                                    _ body: @Sendable (isolated DocumentIndex) throws(RetrievalError) -> T) throws(RetrievalError) -> T {
        let previous = self.embedder
        self.embedder = embedder
        defer { self.embedder = previous }
        return try body(self)
    }

    /// What `search` will do: semantic with the embedder's backend, or lexical and why.
    package var capability: SearchCapability {
        guard let embedder else { return .lexical(reason: "no embedding model is available") }
        if let backend = contents.backend, backend != embedder.identity, contents.hasVectors {
            return .lexical(reason: "the index holds vectors of \(backend), not of \(embedder.identity); re-embed it")
        }
        return .semantic(embedder.identity)
    }

    /// The backend the stored vectors belong to (nil: none yet).
    package var backend: BackendIdentity? { contents.backend }
    package var documentCount: Int { contents.documents.count }
    package var chunkCount: Int { contents.chunkCount }
    package var documentIds: [String] { contents.documents.keys.sorted() }
    /// Documents whose chunks wait for vectors of the current backend.
    package var pendingDocumentCount: Int { contents.pendingIds.count }
    /// Bytes of the journal.
    package var journalBytes: Int { journal.size }

    /// The stored document with `id`.
    package func document(_ id: String) -> IndexDocument? {
        contents.documents[id].map { IndexDocument(id: $0.id, text: $0.text, metadata: $0.metadata) }
    }

    /// The chunks of document `id`, in order.
    package func chunks(of id: String) -> [String] { contents.documents[id]?.chunkTexts ?? [] }

    /// Adds or replaces documents (one journal append, one sync). With an embedder their chunks
    /// are embedded now, and so are any documents still waiting.
    package func add(_ documents: [IndexDocument]) throws(RetrievalError) {
        try requireWritable()
        let embedder = try compatibleEmbedder()
        var records: [JournalRecord] = []
        if let embedder, contents.backend != embedder.identity { records.append(.backend(embedder.identity)) }
        records += try prepare(documents, embedder: embedder).map(JournalRecord.put)
        try commit(records)
        if embedder != nil { try embedPending() }
        try compactIfWorthwhile()
    }

    /// Adds or replaces one document.
    package func add(id: String, text: String, metadata: [String: String] = [:]) throws(RetrievalError) {
        try add([IndexDocument(id: id, text: text, metadata: metadata)])
    }

    /// Removes documents; unknown ids are an error and nothing is removed.
    package func remove(_ ids: [String]) throws(RetrievalError) {
        try requireWritable()
        for id in ids where contents.documents[id] == nil { throw .unknownDocument(id: id) }
        try commit(ids.map { .remove(id: $0) })
        try compactIfWorthwhile()
    }

    /// Replaces every vector with ones from the index's embedder (re-chunking every document
    /// with its tokenizer), after which the index answers queries from that backend.
    package func reembed() throws(RetrievalError) {
        guard let embedder else { throw .noEmbeddingModel }
        let old = contents.backend
        if old != embedder.identity {
            try commit([.backend(embedder.identity)])
            onEvent(.backendChanged(from: old, to: embedder.identity))
        }
        try embedPending()
        try compactIfWorthwhile()
    }

    /// Rewrites the journal with only the live records.
    package func compact() throws(RetrievalError) {
        try requireWritable()
        let before = journal.size
        try journal.compact(contents.records)
        onEvent(.compacted(bytesBefore: before, bytesAfter: journal.size))
    }

    // MARK: Internals

    func requireWritable() throws(RetrievalError) {
        guard !readOnly else { throw .io(path: directory, operation: "write (the index is open read-only)", errno: EROFS) }
    }

    /// The embedder, unless the index holds another backend's vectors. An index whose backend
    /// is another but holds no vectors may switch freely: there is nothing to mix.
    func compatibleEmbedder() throws(RetrievalError) -> Embedder? {
        guard let embedder else { return nil }
        if let backend = contents.backend, backend != embedder.identity, contents.hasVectors {
            throw .backendMismatch(index: backend, query: embedder.identity)
        }
        return embedder
    }

    /// Appends and applies `records` (in memory only for a read-only index).
    func commit(_ records: [JournalRecord]) throws(RetrievalError) {
        if !readOnly { try journal.append(records) }
        for r in records { contents.apply(r) }
    }

    /// Embeds every document waiting for vectors of the embedder's backend.
    func embedPending() throws(RetrievalError) {
        guard let embedder = try compatibleEmbedder() else { return }
        let pending = contents.pendingIds
        guard !pending.isEmpty || contents.backend != embedder.identity else { return }
        var records: [JournalRecord] = contents.backend != embedder.identity ? [.backend(embedder.identity)] : []
        let documents = pending.compactMap { id in contents.documents[id].map { IndexDocument(id: $0.id, text: $0.text, metadata: $0.metadata) } }
        records += try prepare(documents, embedder: embedder).map(JournalRecord.put)
        try commit(records)
    }

    /// Chunks (and with an embedder, embeds) documents into journal form.
    func prepare(_ documents: [IndexDocument], embedder: Embedder?) throws(RetrievalError) -> [StoredDocument] {
        var size = options.chunking.tokens
        if let embedder {
            let prefix = embedder.tokenizer.encodePieces(embedder.prefix(for: EmbeddingOptions(task: .document))).ids.count
            size = max(1, min(size, embedder.maxTokens - 2 - prefix))
        }
        let overlap = min(options.chunking.overlap, size - 1)
        var stored = documents.map { d in
            StoredDocument(id: d.id, text: d.text, metadata: d.metadata,
                           chunks: TextChunker.spans(d.text, tokenizer: embedder?.tokenizer, size: size, overlap: overlap),
                           stamp: 0, dimension: 0, vectors: [])
        }
        guard let embedder else { return stored }
        let texts = stored.flatMap(\.chunkTexts)
        let result = try embedder.embed(texts, options: EmbeddingOptions(task: .document))
        var next = 0
        for i in stored.indices {
            stored[i].stamp = BackendStamp.of(embedder.identity)
            stored[i].dimension = embedder.dimension
            stored[i].vectors.reserveCapacity(stored[i].chunks.count * embedder.dimension)
            for _ in stored[i].chunks {
                stored[i].vectors += result.embeddings[next].vector
                next += 1
            }
        }
        onEvent(.embedded(documents: stored.count, chunks: texts.count))
        return stored
    }

    func compactIfWorthwhile() throws(RetrievalError) {
        guard !readOnly, journal.size > 1 << 20,
              Double(journal.size) > options.compactionRatio * Double(max(contents.liveBytes, 1)) else { return }
        try compact()
    }

    nonisolated func emit(_ event: IndexEvent) { onEvent(event) }
}
