import Foundation

/// Searching a `DocumentIndex`.
extension DocumentIndex {
    /// The `k` chunks best matching `query`: by cosine similarity with the index's embedder
    /// (exact scan, or HNSW past `IndexOptions.approximateThreshold` vectors), or by BM25 when
    /// the index has no embedder — `capability` on the result says which.
    ///
    /// Documents still waiting for vectors are embedded first. Throws `.backendMismatch` when
    /// the stored vectors come from another backend: re-embed, or open with that model.
    package func search(_ query: String, k: Int = 5) throws(RetrievalError) -> SearchResults {
        guard k >= 1 else { throw .invalidArgument(name: "k", value: String(k), expected: "at least 1") }
        guard let embedder = try compatibleEmbedder() else {
            let reason = "no embedding model is available"
            emit(.lexicalFallback(reason: reason))
            return lexicalSearch(query, k: k, capability: .lexical(reason: reason))
        }
        try embedPending()
        let vector = try embedder.embed(query, options: EmbeddingOptions(task: .query)).vector
        return semanticSearch(vector, k: k, identity: embedder.identity)
    }

    /// Semantic search with an already embedded query; `identity` must be the index's backend.
    package func search(vector: [Float], identity: BackendIdentity, k: Int = 5) throws(RetrievalError) -> SearchResults {
        guard k >= 1 else { throw .invalidArgument(name: "k", value: String(k), expected: "at least 1") }
        guard let backend = contents.backend else { throw .noEmbeddingModel }
        guard backend == identity, vector.count == backend.dimension else {
            throw .backendMismatch(index: backend, query: identity)
        }
        return semanticSearch(vector, k: k, identity: identity)
    }

    /// BM25 search, available whatever the embedding state.
    package func lexicalSearch(_ query: String, k: Int = 5) throws(RetrievalError) -> SearchResults {
        guard k >= 1 else { throw .invalidArgument(name: "k", value: String(k), expected: "at least 1") }
        return lexicalSearch(query, k: k, capability: .lexical(reason: "lexical search was asked for"))
    }

    private func lexicalSearch(_ query: String, k: Int, capability: SearchCapability) -> SearchResults {
        structures.syncLexical(contents)
        let lexical = structures.lexical
        let hits = lexical.search(query, k: k).map { hit(lexical.keys[$0.row], score: $0.score) }
        return SearchResults(capability: capability, method: .bm25, hits: hits)
    }

    private func semanticSearch(_ vector: [Float], k: Int, identity: BackendIdentity) -> SearchResults {
        structures.syncVectors(contents)
        guard let matrix = structures.matrix else { return SearchResults(capability: .semantic(identity), method: .exact, hits: []) }
        var method = SearchMethod.exact
        var found: [(row: Int, score: Float)]
        if structures.liveVectorCount >= options.approximateThreshold {
            if structures.hnsw == nil {
                let start = Date()
                structures.buildGraph(options.hnsw)
                emit(.approximateIndexBuilt(vectors: matrix.count, seconds: Date().timeIntervalSince(start)))
            }
            found = structures.approximate(vector, k: k) ?? []
            method = .approximate
        } else {
            let threads = options.threads ?? embedder?.threads ?? ProcessInfo.processInfo.activeProcessorCount
            found = structures.exact(vector, k: k, threads: threads)
        }
        let keys = structures.matrix!.keys
        return SearchResults(capability: .semantic(identity), method: method,
                             hits: found.map { hit(keys[$0.row], score: $0.score) })
    }

    private func hit(_ key: ChunkKey, score: Float) -> SearchHit {
        let d = contents.documents[key.documentId]
        return SearchHit(chunk: key, score: score, text: d?.chunkText(key.ordinal) ?? "", metadata: d?.metadata ?? [:])
    }
}
