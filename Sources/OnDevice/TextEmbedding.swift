/// One text's embedding and what the model read.
public struct TextEmbedding: Sendable, Equatable {
    /// Unit length.
    public let vector: [Float]
    /// The model's input token ids, one sequence per window (one unless the text was chunked).
    public let tokenSequences: [[Int]]
    /// Set when the text was longer than the model takes.
    public let overflow: Overflow?

    public enum Overflow: Sendable, Equatable {
        /// Only the first `limit` of its `tokens` were embedded.
        case truncated(tokens: Int, limit: Int)
        /// Its `tokens` were embedded as `windows` windows.
        case chunked(tokens: Int, windows: Int)
    }
}
