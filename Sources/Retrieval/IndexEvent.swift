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
