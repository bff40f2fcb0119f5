/// A document to index.
package struct IndexDocument: Sendable, Equatable {
    /// Unique within the index; adding an existing id replaces that document.
    package var id: String
    package var text: String
    /// Free-form string pairs returned with every hit (source path, title, …).
    package var metadata: [String: String]

    package init(id: String, text: String, metadata: [String: String] = [:]) {
        self.id = id
        self.text = text
        self.metadata = metadata
    }
}

/// How a ranking was computed.
package enum SearchMethod: String, Sendable, Equatable {
    /// Dot products with every stored vector.
    case exact
    /// The HNSW graph (past `IndexOptions.approximateThreshold` vectors).
    case approximate
    /// BM25 over chunk text.
    case bm25
}

/// One ranked chunk.
package struct SearchHit: Sendable, Equatable {
    package var chunk: ChunkKey
    /// Cosine similarity for semantic search, the BM25 score for lexical search: the two are
    /// never mixed in one ranking.
    package var score: Float
    package var text: String
    package var metadata: [String: String]

    package var documentId: String { chunk.documentId }
}

/// A ranking and what produced it.
package struct SearchResults: Sendable, Equatable {
    package var capability: SearchCapability
    package var method: SearchMethod
    package var hits: [SearchHit]
}

/// Something the index did that its user should know about.
package enum IndexEvent: Sendable, Equatable {
    /// Opening found a torn final write (a process killed mid-append): `bytes` were cut off by
    /// a writer, or skipped by a reader.
    case recovered(tornBytes: Int)
    /// The vectors now belong to another backend (stale ones were dropped).
    case backendChanged(from: BackendIdentity?, to: BackendIdentity?)
    /// Documents (and their chunks) were embedded, on add or to catch up.
    case embedded(documents: Int, chunks: Int)
    /// A search was answered by BM25 because no embedding model is available.
    case lexicalFallback(reason: String)
    /// The journal was rewritten with only live records.
    case compacted(bytesBefore: Int, bytesAfter: Int)
    /// The approximate (HNSW) index was built over `vectors` vectors.
    case approximateIndexBuilt(vectors: Int, seconds: Double)
}

/// Tunables of a `DocumentIndex`.
package struct IndexOptions: Sendable, Equatable {
    package var chunking = ChunkingOptions()
    /// From this many vectors on, semantic search uses the HNSW graph instead of the exact scan.
    /// The graph is built in memory on the first such search (tens of seconds at 100k vectors)
    /// and kept up to date after that, so it pays off in long-lived processes only.
    package var approximateThreshold = 20_000
    package var hnsw = HNSWParameters()
    /// Threads of the exact scan (nil: the embedder's, else the machine's cores).
    package var threads: Int?
    /// Compact when the journal is at least this many times its live size (and over 1 MiB).
    package var compactionRatio = 2.0

    package init() {}
}
