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
