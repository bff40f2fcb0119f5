import Formats
import Foundation
import Models
import ModelStore
import Retrieval
import Runtime

/// Text embedding models: a sentence-transformers BERT folder (`config.json`,
/// `model.safetensors`, `tokenizer.json`; all-MiniLM-L6-v2) or a nomic-bert GGUF file
/// (nomic-embed-text-v1.5). Lives in the OnDevice layer because it needs Retrieval's `Embedder`,
/// which sits beside Runtime, not below it.
package struct EmbeddingEngine: ModelEngine {
    package init() {}
    package var kind: ModelKind { .embedding }

    package func loader(for entry: CatalogEntry, in directory: String, options: LoadOptions) throws(RuntimeError) -> any ResidentModelLoading {
        try typedLoader(for: entry, in: directory, options: options)
    }

    package func typedLoader(for entry: CatalogEntry, in directory: String, options: LoadOptions) throws(RuntimeError) -> EmbedderLoader {
        // A model given by path (used where it lies) stamps its vectors with the name of its
        // folder or file, as `Embedder.load` names it, not with the absolute path that is its id
        // in the cache: an index keeps its backend when the folder moves.
        let identityId: String? = if case .local(let path) = entry.source, path == entry.id { nil } else { entry.id }
        if let gguf = entry.files.first(where: { $0.name.hasSuffix(".gguf") }) {
            return EmbedderLoader(modelId: entry.id, path: directory + "/" + gguf.name, revision: gguf.sha256, identityId: identityId,
                                  threads: options.threads)
        }
        guard let weights = entry.files.first(where: { $0.name.hasSuffix("model.safetensors") }) else {
            throw .load(modelId: entry.id, reason: "neither a .gguf nor a model.safetensors among \(entry.files.map(\.name))")
        }
        let folder = ((directory + "/" + weights.name) as NSString).deletingLastPathComponent
        return EmbedderLoader(modelId: entry.id, path: folder, revision: weights.sha256, identityId: identityId, threads: options.threads)
    }
}

extension EngineRegistry {
    /// Every engine in this build: the runtime's own plus the ones layers above it provide.
    /// The CLI and the public API use this registry; nothing else should build one by hand.
    package static var complete: EngineRegistry { EngineRegistry(EngineRegistry.runtimeEngines + [EmbeddingEngine()]) }
}

extension RuntimeDependencies {
    /// `production` with every engine of this build registered.
    package static func complete(environment: [String: String] = ProcessInfo.processInfo.environment) -> RuntimeDependencies {
        var dependencies = RuntimeDependencies.production(environment: environment)
        dependencies.engines = .complete
        return dependencies
    }
}
