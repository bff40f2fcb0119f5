/// How a ranking was computed.
package enum SearchMethod: String, Sendable, Equatable {
    /// Dot products with every stored vector.
    case exact
    /// The HNSW graph (past `IndexOptions.approximateThreshold` vectors).
    case approximate
    /// BM25 over chunk text.
    case bm25
}
