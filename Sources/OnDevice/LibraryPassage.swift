/// One passage a search found.
public struct LibraryPassage: Sendable, Equatable {
    public let documentId: String
    /// Its place in the document, from 0.
    public let ordinal: Int
    /// Cosine similarity for a search by meaning, the BM25 score for one by words: the two are
    /// never mixed in one ranking.
    public let score: Float
    public let text: String
    public let metadata: [String: String]
}
