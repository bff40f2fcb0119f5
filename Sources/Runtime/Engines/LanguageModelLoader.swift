import Formats
import ModelStore
import Models
import TextGeneration

/// Loads a GGUF language model for the residency cache and estimates it from the file's header
/// and the context it will run with.
package struct LanguageModelLoader: ResidentModelLoading {
    package let modelId: String
    package let path: String
    /// Context of the session allocated at load (clamped to the model's own).
    package let contextLength: Int
    package let threads: Int

    package var kind: ModelKind { .llm }

    /// Heap a loaded tokenizer and its metadata take per vocabulary entry: measured 172 B on
    /// SmolLM2 (49,152 tokens, 8.1 MiB) and 110 B on Gemma 3 (262,144 tokens, 27.5 MiB), so the
    /// larger figure keeps the estimate on the safe side. Only the estimate uses it; the resident
    /// size is measured after loading.
    package static let heapBytesPerToken = 176

    package init(modelId: String, path: String, contextLength: Int, threads: Int) {
        self.modelId = modelId
        self.path = path
        self.contextLength = max(1, contextLength)
        self.threads = max(1, threads)
    }

    package func estimate() throws(RuntimeError) -> MemoryEstimate {
        let file: GGUFFile
        do { file = try GGUFFile.open(path: path) } catch { throw .load(modelId: modelId, reason: "\(error)") }
        let config: DecoderConfig
        do { config = try DecoderConfig(file: file) } catch { throw Self.classify(error, modelId: modelId) }
        // Views only (nothing is read): checks every tensor's name, shape and type, so a file
        // whose weights this engine would have to ignore is refused before it is loaded.
        do { _ = try DecoderWeights(file: file, config: config) } catch { throw Self.classify(error, modelId: modelId) }
        let context = max(1, min(contextLength, config.contextLength))
        let state = DecoderState.byteCount(config: config, contextLength: context)
        let cache = 2 * config.layerCount * context * config.kvDim * MemoryLayout<Float>.size
        return MemoryEstimate(weightBytes: file.region.count, cacheBytes: cache,
                              scratchBytes: state - cache + config.vocabularySize * Self.heapBytesPerToken)
    }

    package func load() async throws(RuntimeError) -> ResidentLanguageModel {
        let before = ProcessMemory.current()?.anonymousBytes ?? 0
        let model: LanguageModel
        do { model = try LanguageModel(path: path) } catch {
            if case .model(let m) = error { throw Self.classify(m, modelId: modelId) }
            throw .load(modelId: modelId, reason: error.description)
        }
        let after = ProcessMemory.current()?.anonymousBytes ?? before
        let resident = ResidentLanguageModel(model: model, heapBytes: after - before)
        resident.prepareSession(contextLength: contextLength, threads: threads)
        return resident
    }

    /// A file this build reads but whose model it does not run is "unsupported" (capability
    /// says so, naming what), not a broken file.
    static func classify(_ error: ModelError, modelId: String) -> RuntimeError {
        switch error {
        case .unsupportedArchitecture, .unsupportedHyperparameter, .unexpectedTensor:
            .unsupportedModel(modelId: modelId, reason: error.description)
        default:
            .load(modelId: modelId, reason: error.description)
        }
    }
}
