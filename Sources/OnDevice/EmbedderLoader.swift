import Formats
import Foundation
import Models
import ModelStore
import Retrieval
import Runtime
import Tensor

/// Loads an embedding model for the residency cache and estimates it from the model's
/// configuration (`config.json` or the GGUF header) without reading the weights.
package struct EmbedderLoader: ResidentModelLoading {
    package let modelId: String
    /// A sentence-transformers folder or a `.gguf` file.
    package let path: String
    /// The weights' pinned SHA-256 (nil computes a fingerprint at load).
    package let revision: String?
    /// The model id vectors are stamped with; nil names the model after its folder or file (a
    /// model given by path), as `Embedder.load` does.
    package let identityId: String?
    package let threads: Int

    package var kind: ModelKind { .embedding }

    /// Heap a WordPiece tokenizer takes per vocabulary entry (its token table, lookup dictionary
    /// and what parsing `tokenizer.json` leaves in the allocator): all-MiniLM-L6-v2's load and
    /// first short input grew anonymous memory by 10.8 MiB, ~350 B for each of its 30,522
    /// entries. Rounded up; the resident size is measured.
    package static let heapBytesPerToken = 384

    package init(modelId: String, path: String, revision: String?, identityId: String?, threads: Int) {
        self.modelId = modelId
        self.path = path
        self.revision = revision
        self.identityId = identityId
        self.threads = max(1, threads)
    }

    /// Weights: the mapped file. Scratch: one encoder state sized for a full packed batch
    /// (`EmbeddingOptions.batchTokens` tokens, sequences up to the position table), the
    /// per-layer vectors copied to f32 at load, and the tokenizer's tables.
    package func estimate() throws(RuntimeError) -> MemoryEstimate {
        let weights: Int
        let config: EncoderConfig
        // The linear weights' element type decides whether they are repacked to int16 (F32 and
        // F16 are; their file pages are then released) and how many file bytes that frees.
        let linearType: GGMLType?
        if path.hasSuffix(".gguf") {
            let file: GGUFFile
            do { file = try GGUFFile.open(path: path) } catch { throw .load(modelId: modelId, reason: "\(error)") }
            do { config = try EncoderConfig(gguf: file, arch: file.architecture ?? "") } catch { throw .load(modelId: modelId, reason: "\(error)") }
            weights = file.region.count
            linearType = try? file.tensor("blk.0.ffn_up.weight").type
        } else {
            let json: Data
            do { json = try Data(contentsOf: URL(fileURLWithPath: path + "/config.json")) } catch {
                throw .load(modelId: modelId, reason: "cannot read \(path)/config.json")
            }
            do { config = try EncoderConfig(bertConfigJSON: json) } catch { throw .load(modelId: modelId, reason: "\(error)") }
            let attributes = try? FileManager.default.attributesOfItem(atPath: path + "/model.safetensors")
            guard let size = (attributes?[.size] as? NSNumber)?.intValue else {
                throw .load(modelId: modelId, reason: "cannot stat \(path)/model.safetensors")
            }
            weights = size
            let file = try? SafetensorsFile.open(path: path + "/model.safetensors")
            linearType = ["encoder.layer.0.intermediate.dense.weight", "bert.encoder.layer.0.intermediate.dense.weight"]
                .lazy.compactMap { try? file?.tensor($0).type }.first
        }
        let d = config.embeddingLength
        // Per layer: up to 3d of q/k/v biases, d output bias, two norms (2d each), ffn + d
        // feed-forward biases; plus the embedding norm and the token-type row.
        let vectors = (config.layerCount * (10 * d + config.feedForwardLength) + 3 * d) * MemoryLayout<Float>.size
        // Linear weights: 4d² of attention and two (BERT) or three (nomic's SwiGLU) d × ffn
        // feed-forward matrices per layer. Repacked (`EncoderPrecision.int16`), they hold 2 bytes
        // each on the heap and their pages of the mapped file are released.
        let feedForward = (path.hasSuffix(".gguf") ? 3 : 2) * d * config.feedForwardLength
        let linear = config.layerCount * (4 * d * d + feedForward)
        let fileBytesPerWeight = linearType == .f32 ? 4 : linearType == .f16 ? 2 : 0
        let mapped = weights - linear * fileBytesPerWeight, packed = fileBytesPerWeight > 0 ? linear * 2 : 0
        let state = EncoderState.byteCount(config: config, tokens: EmbeddingOptions().batchTokens,
                                           longestSequence: config.maxPositions)
        return MemoryEstimate(weightBytes: max(0, mapped),
                              scratchBytes: state + vectors + packed + config.vocabularySize * Self.heapBytesPerToken)
    }

    package func load() async throws(RuntimeError) -> ResidentEmbedder {
        let before = ProcessMemory.current()?.anonymousBytes ?? 0
        let embedder: Embedder
        do { embedder = try Embedder.load(path: path, modelId: identityId, revision: revision, threads: threads) } catch {
            throw .load(modelId: modelId, reason: "\(error)")
        }
        let after = ProcessMemory.current()?.anonymousBytes ?? before
        let weights = path.hasSuffix(".gguf") ? path : path + "/model.safetensors"
        let size = (try? FileManager.default.attributesOfItem(atPath: weights)[.size] as? NSNumber)?.intValue ?? 0
        // The linear weights repacked to int16 are not read again: their file pages were released.
        let resident = ResidentEmbedder(embedder: embedder, mappedBytes: max(0, size - embedder.encoder.evictedBytes),
                                        heapBytes: after - before)
        // One short input allocates a scratch state, as the first op would.
        _ = try? embedder.embed(["warm up"])
        return resident
    }
}

/// An embedding model held by the residency cache.
///
/// `residentBytes` is measured: the mapped weights file (one forward pass touches every weight
/// page) less the pages of the weights repacked to int16 at load, which were released, the heap the load allocated (tokenizer, f32 vectors) measured as the growth of anonymous
/// resident memory, and the exact bytes of the encoder scratch states the embedder holds idle.
package final class ResidentEmbedder: ResidentModel {
    package static var kind: ModelKind { .embedding }
    package let embedder: Embedder
    package let mappedBytes: Int
    package let heapBytes: Int

    package init(embedder: Embedder, mappedBytes: Int, heapBytes: Int) {
        self.embedder = embedder
        self.mappedBytes = mappedBytes
        self.heapBytes = max(0, heapBytes)
    }

    package var residentBytes: Int { mappedBytes + heapBytes + embedder.idleScratchBytes }
}
