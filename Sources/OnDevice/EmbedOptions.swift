/// How texts are embedded.
public struct EmbedOptions: Sendable, Equatable {
    /// What the texts are for (nomic-embed's `search_query: ` / `search_document: ` prefixes).
    public var purpose: EmbeddingPurpose?
    /// Any other text put before each input (instead of the purpose's prefix).
    public var prefix: String?
    /// What to do with an input longer than the model takes.
    public var overflow: Overflow = .truncate
    /// The embedding model for this call (a catalog id, or a model folder's or `.gguf` path); nil
    /// uses `Configuration.embeddingModel`. Several models serve one instance side by side.
    public var model: String?
    /// Seconds the model stays loaded once this call is done (Ollama's `keep_alive`: 0 unloads it
    /// now, a negative value keeps it until memory is needed); nil uses the instance's.
    public var keepAliveSeconds: Double?

    public enum Overflow: String, Sendable, Equatable, CaseIterable {
        /// Embed its beginning, as sentence-transformers does (reported on the embedding).
        case truncate
        /// Embed it in windows of the model's length and average them by their tokens.
        case chunk
        /// Fail with `OnDeviceError.inputTooLong`.
        case refuse
    }

    public init(purpose: EmbeddingPurpose? = nil, prefix: String? = nil, overflow: Overflow = .truncate, model: String? = nil,
                keepAliveSeconds: Double? = nil) {
        self.purpose = purpose
        self.prefix = prefix
        self.overflow = overflow
        self.model = model
        self.keepAliveSeconds = keepAliveSeconds
    }
}
