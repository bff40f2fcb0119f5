import Foundation
import Retrieval
import Runtime

/// What embedded text is for; models trained with task prefixes (nomic-embed) embed queries and
/// documents differently, others ignore it.
public enum EmbeddingPurpose: Sendable, Equatable {
    case query
    case document
}

extension OnDeviceAI {
    /// Unit-length embedding vectors of `texts`, in order, from the configured embedding model
    /// (leased from the runtime). Texts longer than the model's limit are embedded from their
    /// beginning, as sentence-transformers does.
    public func embed(_ texts: [String], purpose: EmbeddingPurpose? = nil) async throws -> [[Float]] {
        let lease = try await leaseModel(ResidentEmbedder.self, configuration.embeddingModel)
        var options = EmbeddingOptions()
        options.task = purpose.map { $0 == .query ? .query : .document }
        do {
            let result = try lease.model.embedder.embed(texts, options: options)
            await lease.release()
            return result.embeddings.map(\.vector)
        } catch {
            await lease.release()
            throw OnDeviceError.engine("\(error)")
        }
    }

    /// Leases model `modelId` from the runtime as a `Model`, with the configured threads.
    func leaseModel<Model: ResidentModel>(_ type: Model.Type, _ modelId: String) async throws -> EngineLease<Model> {
        let runtime = try await runtime()
        do {
            return try await runtime.lease(type, modelId: modelId, options: LoadOptions(threads: modelThreads))
        } catch .cancelled {
            throw OnDeviceError.cancelled
        } catch {
            throw OnDeviceError.modelUnavailable(model: modelId, reason: error.description)
        }
    }

    /// Kernel threads of non-text ops: the configured count, else every core.
    var modelThreads: Int { configuration.threads ?? ProcessInfo.processInfo.activeProcessorCount }
}
