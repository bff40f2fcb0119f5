/// What the text is for, for models trained with task prefixes (nomic-embed:
/// `search_query: ` / `search_document: `). Models without prefixes ignore it.
package enum EmbeddingTask: String, Sendable, Equatable, CaseIterable {
    case query
    case document
}

/// What to do with an input longer than the model's sequence limit.
package enum OverflowPolicy: String, Sendable, Equatable, CaseIterable {
    /// Keep the first `limit` tokens (as sentence-transformers does); reported as `.truncated`.
    case truncate
    /// Embed consecutive windows of the limit and average them weighted by their token
    /// counts; reported as `.chunked`.
    case chunk
    /// Throw `RetrievalError.inputTooLong`.
    case fail
}

/// Options of one `Embedder.embed` call.
package struct EmbeddingOptions: Sendable, Equatable {
    /// The model's prefix for this task is put before each text (when the model has one).
    package var task: EmbeddingTask?
    /// An explicit prefix; overrides `task`.
    package var prefix: String?
    package var overflow: OverflowPolicy = .truncate
    /// Most tokens run through the model in one packed pass; bounds scratch memory.
    package var batchTokens = 2048

    package init(task: EmbeddingTask? = nil, prefix: String? = nil, overflow: OverflowPolicy = .truncate) {
        self.task = task
        self.prefix = prefix
        self.overflow = overflow
    }
}

/// Something the embedder did that changes what an input's vector means.
package enum EmbeddingEvent: Sendable, Equatable {
    /// Input `input` had `tokens` tokens; only the first `limit` were embedded.
    case truncated(input: Int, tokens: Int, limit: Int)
    /// Input `input` had `tokens` tokens and was embedded as `windows` windows.
    case chunked(input: Int, tokens: Int, windows: Int)
}

/// One input's embedding.
package struct Embedding: Sendable, Equatable {
    /// The L2-normalized vector.
    package var vector: [Float]
    /// The model input: `[CLS]` + pieces + `[SEP]`, one sequence per window (one unless the
    /// input was chunked).
    package var sequences: [[Int32]]
    /// L2 norm of the mean-pooled vector before normalization.
    package var pooledNorm: Float

    /// The token ids of the (first) model input.
    package var tokens: [Int32] { sequences.first ?? [] }
}

/// The result of embedding several inputs.
package struct EmbeddingResult: Sendable, Equatable {
    /// In input order.
    package var embeddings: [Embedding]
    package var events: [EmbeddingEvent]
    /// Model-input tokens processed (all windows).
    package var tokenCount: Int
}
