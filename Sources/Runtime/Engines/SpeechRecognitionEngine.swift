import Formats
import Foundation
import ModelStore
import Models
import Tokenizers

/// Whisper speech recognition from a faster-whisper (CTranslate2) model folder: `model.bin`,
/// `config.json`, `tokenizer.json`.
package struct SpeechRecognitionEngine: ModelEngine {
    package init() {}
    package var kind: ModelKind { .asr }

    package func loader(for entry: CatalogEntry, in directory: String, options: LoadOptions) throws(RuntimeError) -> any ResidentModelLoading {
        try typedLoader(for: entry, in: directory, options: options)
    }

    package func typedLoader(for entry: CatalogEntry, in directory: String, options: LoadOptions) throws(RuntimeError) -> WhisperLoader {
        guard let bin = entry.files.first(where: { $0.name.hasSuffix("model.bin") }) else {
            throw .load(modelId: entry.id, reason: "no model.bin among \(entry.files.map(\.name))")
        }
        let folder = ((directory + "/" + bin.name) as NSString).deletingLastPathComponent
        return WhisperLoader(modelId: entry.id, directory: folder, threads: options.threads)
    }
}

/// Loads a Whisper model for the residency cache and estimates it from the CTranslate2 header.
package struct WhisperLoader: ResidentModelLoading {
    package let modelId: String
    /// The folder holding `model.bin`, `config.json` and `tokenizer.json`.
    package let directory: String
    package let threads: Int

    package var kind: ModelKind { .asr }

    /// Heap a loaded Whisper tokenizer takes per vocabulary entry (its tables plus what parsing
    /// `tokenizer.json` leaves in the allocator): tiny.en's load grew anonymous memory by
    /// 22.4 MiB, of which 2.9 MiB are the position tables, i.e. ~395 B for each of its 51,864
    /// entries. Rounded up so the estimate stays on the safe side; the resident size is measured.
    package static let heapBytesPerToken = 512

    package init(modelId: String, directory: String, threads: Int) {
        self.modelId = modelId
        self.directory = directory
        self.threads = max(1, threads)
    }

    /// Weights: the mapped `model.bin`. Cache: the decoder caches of one transcriber's state
    /// (16 beams, cross-attention K/V). Scratch: the rest of that state, the position tables
    /// converted to f32 at load and the tokenizer's tables.
    package func estimate() throws(RuntimeError) -> MemoryEstimate {
        let file: CTranslate2Model
        do { file = try CTranslate2Model.open(path: directory + "/model.bin") } catch { throw .load(modelId: modelId, reason: "\(error)") }
        let config: WhisperConfig
        do { config = try WhisperConfig(file: file) } catch { throw .load(modelId: modelId, reason: "\(error)") }
        let beams = ResidentWhisperModel.stateBeams
        let cache = WhisperState.cacheByteCount(config: config, maxBeams: beams)
        let state = WhisperState.byteCount(config: config, maxBeams: beams, threads: threads)
        let positions = (config.audioContext + config.textContext) * config.width * MemoryLayout<Float>.size
        return MemoryEstimate(weightBytes: file.region.count, cacheBytes: cache,
                              scratchBytes: state - cache + positions + config.vocabularySize * Self.heapBytesPerToken)
    }

    package func load() async throws(RuntimeError) -> ResidentWhisperModel {
        for name in ["model.bin", "config.json", "tokenizer.json"] where !FileManager.default.fileExists(atPath: directory + "/" + name) {
            throw .load(modelId: modelId, reason: "missing \(directory)/\(name)")
        }
        let before = ProcessMemory.current()?.anonymousBytes ?? 0
        let model: WhisperModel
        do { model = try WhisperModel(directory: directory) } catch { throw .load(modelId: modelId, reason: "\(error)") }
        let tokenizer: WhisperTokenizer
        do {
            tokenizer = try WhisperTokenizer(path: directory + "/tokenizer.json", vocabularySize: model.config.vocabularySize)
        } catch { throw .load(modelId: modelId, reason: "\(error)") }
        let after = ProcessMemory.current()?.anonymousBytes ?? before
        let resident = ResidentWhisperModel(model: model, tokenizer: tokenizer, heapBytes: after - before)
        // Allocate one transcriber now, so the load pays for (and measures) the state an op needs.
        resident.checkIn(resident.checkOut(threads: threads))
        return resident
    }
}
