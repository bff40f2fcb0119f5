import Foundation
import ModelStore
import Retrieval
import Runtime

/// An embedding model held by the residency cache. `Embedder` is safe to share: requests embed
/// through it concurrently.
package final class ResidentEmbedder: ResidentModel {
    package let embedder: Embedder
    package let residentBytes: Int

    init(embedder: Embedder, residentBytes: Int) {
        self.embedder = embedder
        self.residentBytes = residentBytes
    }
}

/// Loads an installed embedding model (a sentence-transformers directory or a nomic-bert GGUF),
/// as `ondevice embed` does, for the residency cache.
package struct EmbedderLoader: ResidentModelLoading {
    package let model: InstalledModel
    package let threads: Int

    package var modelId: String { model.id }
    package var kind: ModelKind { .embedding }

    /// The weights file's path: a GGUF loads from the file, safetensors from the directory.
    private var weights: (path: String, sha256: String?, bytes: Int) {
        let file = model.entry.files.first { $0.name.hasSuffix(".gguf") || $0.name.hasSuffix(".safetensors") }
        let path = file.map { model.directory + "/" + $0.name } ?? model.directory
        let bytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        return (file?.name.hasSuffix(".gguf") == true ? path : model.directory, file?.sha256, bytes)
    }

    package func estimate() throws(RuntimeError) -> MemoryEstimate {
        // Safetensors are read into memory whole; the encoder's scratch is small beside them.
        MemoryEstimate(weightBytes: weights.bytes, scratchBytes: 32 << 20)
    }

    package func load() async throws(RuntimeError) -> ResidentEmbedder {
        let w = weights
        do {
            let embedder = try Embedder.load(path: w.path, modelId: model.id, revision: w.sha256, threads: threads)
            return ResidentEmbedder(embedder: embedder, residentBytes: w.bytes + (32 << 20))
        } catch {
            throw .load(modelId: model.id, reason: "\(error)")
        }
    }
}
