import Foundation
import Retrieval
import Runtime

extension OnDeviceAI {
    /// Unit-length embedding vectors of `texts`, in order, from the configured embedding model
    /// (leased from the runtime). Texts longer than the model's limit are embedded from their
    /// beginning, as sentence-transformers does.
    public func embed(_ texts: [String], purpose: EmbeddingPurpose? = nil) async throws -> [[Float]] {
        try await embeddings(texts, options: EmbedOptions(purpose: purpose)).embeddings.map(\.vector)
    }

    /// The embeddings of `texts` with what the model read for each (its tokens, and whether the
    /// text was truncated or chunked).
    public func embeddings(_ texts: [String], options: EmbedOptions = EmbedOptions()) async throws -> TextEmbeddings {
        let modelId = options.model ?? configuration.embeddingModel
        let lease = try await leaseModel(ResidentEmbedder.self, modelId, keepAliveSeconds: options.keepAliveSeconds)
        var engineOptions = EmbeddingOptions()
        engineOptions.task = options.purpose.map { $0 == .query ? .query : .document }
        engineOptions.prefix = options.prefix
        engineOptions.overflow = switch options.overflow {
        case .truncate: .truncate
        case .chunk: .chunk
        case .refuse: .fail
        }
        let embedder = lease.model.embedder
        let result: EmbeddingResult
        do {
            result = try embedder.embed(texts, options: engineOptions)
        } catch {
            await lease.release()
            if case let .inputTooLong(input, tokens, limit) = error {
                var failure = OnDeviceError(code: .inputTooLong, message: "text \(input + 1) has \(tokens) tokens, over the model's \(limit)",
                                            cause: error)
                failure.tokens = tokens
                failure.limit = limit
                failure.model = modelId
                throw failure
            }
            throw OnDeviceError(code: .engine, message: error.description, cause: error)
        }
        await lease.release()
        var overflow: [Int: TextEmbedding.Overflow] = [:]
        for event in result.events {
            switch event {
            case let .truncated(input, tokens, limit): overflow[input] = .truncated(tokens: tokens, limit: limit)
            case let .chunked(input, tokens, windows): overflow[input] = .chunked(tokens: tokens, windows: windows)
            }
        }
        let embeddings = result.embeddings.enumerated().map { i, e in
            TextEmbedding(vector: e.vector, tokenSequences: e.sequences.map { $0.map(Int.init) }, overflow: overflow[i])
        }
        return TextEmbeddings(embeddings: embeddings, model: embedder.identity.modelId)
    }

    /// Leases model `modelId` from the runtime as a `Model`, with the configured threads.
    func leaseModel<Model: ResidentModel>(_ type: Model.Type, _ modelId: String, keepAliveSeconds: Double? = nil) async throws -> EngineLease<Model> {
        let runtime = try await runtime()
        do {
            return try await runtime.lease(type, modelId: modelId, options: LoadOptions(threads: modelThreads),
                                           keepAlive: keepAliveSeconds.map(KeepAlive.init(seconds:)))
        } catch .cancelled {
            throw OnDeviceError.cancelled
        } catch {
            throw OnDeviceError.modelUnavailable(model: modelId, reason: error.description)
        }
    }

    /// Kernel threads of non-text ops: the configured count, else every core.
    var modelThreads: Int { configuration.threads ?? ProcessInfo.processInfo.activeProcessorCount }
}
