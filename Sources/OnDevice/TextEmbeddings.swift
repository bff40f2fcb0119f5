/// Embeddings of several texts, in input order, and the model that made them.
public struct TextEmbeddings: Sendable, Equatable {
    public let embeddings: [TextEmbedding]
    /// The backend's model name (catalog id, or a model file's or folder's name).
    public let model: String
}
