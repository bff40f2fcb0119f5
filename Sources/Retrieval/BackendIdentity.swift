/// What made a vector: the model, the exact weights, and how text became model input. Two
/// vectors are comparable only when their identities are equal, so every stored vector is
/// stamped with one and the index refuses to rank across two.
package struct BackendIdentity: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Catalog id, e.g. `all-minilm-l6-v2`.
    package var modelId: String
    /// The weights: the SHA-256 of the weights file when known (the catalog pins it), else a
    /// fingerprint of the file (see `Embedder.fingerprint`).
    package var revision: String
    /// Tokenizer, pooling, normalization, length limit and task-prefix scheme, versioned: any
    /// change that moves vectors must change this string.
    package var preprocessing: String
    /// Vector length.
    package var dimension: Int

    package init(modelId: String, revision: String, preprocessing: String, dimension: Int) {
        self.modelId = modelId
        self.revision = revision
        self.preprocessing = preprocessing
        self.dimension = dimension
    }

    package var description: String {
        "\(modelId)@\(revision.prefix(12)) [\(preprocessing), \(dimension)d]"
    }
}

/// What a search over an index can do right now. Reported before acting, and on every result,
/// so a caller always knows which ranking it got.
package enum SearchCapability: Sendable, Equatable, CustomStringConvertible {
    /// Vector search with this backend's embeddings.
    case semantic(BackendIdentity)
    /// BM25 over the chunk text only, because no embedding model is available (`reason`).
    case lexical(reason: String)

    package var description: String {
        switch self {
        case .semantic(let id): "semantic (\(id))"
        case .lexical(let reason): "lexical BM25 (\(reason))"
        }
    }

    package var isSemantic: Bool {
        if case .semantic = self { return true }
        return false
    }
}
