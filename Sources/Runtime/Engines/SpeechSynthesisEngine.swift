import Foundation
import ModelStore
import Models
import Phonemes
import Speech

/// Piper voices: the `*.onnx` network and its `*.onnx.json` config.
package struct SpeechSynthesisEngine: ModelEngine {
    package init() {}
    package var kind: ModelKind { .tts }

    package func loader(for entry: CatalogEntry, in directory: String, options: LoadOptions) throws(RuntimeError) -> any ResidentModelLoading {
        try typedLoader(for: entry, in: directory, options: options)
    }

    package func typedLoader(for entry: CatalogEntry, in directory: String, options: LoadOptions) throws(RuntimeError) -> PiperVoiceLoader {
        guard let onnx = entry.files.first(where: { $0.name.hasSuffix(".onnx") }) else {
            throw .load(modelId: entry.id, reason: "no .onnx file among \(entry.files.map(\.name))")
        }
        return PiperVoiceLoader(modelId: entry.id, onnxPath: directory + "/" + onnx.name)
    }
}

/// Loads a Piper voice for the residency cache.
package struct PiperVoiceLoader: ResidentModelLoading {
    package let modelId: String
    package let onnxPath: String

    package var kind: ModelKind { .tts }

    /// Scratch of one sentence through the generator, bounded for a ~10 s sentence: HiFi-GAN's
    /// widest activations are (channels 64…512) × (samples/256 … samples) floats, a few live at
    /// once. A bound, not a measurement; `residentBytes` is measured after load.
    package static let sentenceScratchBytes = 96 << 20

    package init(modelId: String, onnxPath: String) {
        self.modelId = modelId
        self.onnxPath = onnxPath
    }

    /// The voice config beside the network (`<name>.onnx.json`).
    package var configPath: String { onnxPath + ".json" }

    /// Weights: the ONNX file (its initializers are read at load). Scratch: one sentence.
    package func estimate() throws(RuntimeError) -> MemoryEstimate {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: onnxPath),
              let size = (attributes[.size] as? NSNumber)?.intValue else {
            throw .load(modelId: modelId, reason: "missing \(onnxPath)")
        }
        return MemoryEstimate(weightBytes: size, scratchBytes: Self.sentenceScratchBytes)
    }

    package func load() async throws(RuntimeError) -> ResidentPiperVoice {
        let config: PiperVoiceConfig
        do { config = try PiperVoiceConfig(path: configPath) } catch { throw .load(modelId: modelId, reason: error.description) }
        let model: PiperVoiceModel
        do { model = try PiperVoiceModel.load(onnx: URL(fileURLWithPath: onnxPath)) } catch {
            throw .load(modelId: modelId, reason: "\(error)")
        }
        guard model.sampleRate == config.sampleRate else {
            throw .load(modelId: modelId, reason: "network rate \(model.sampleRate) Hz, config says \(config.sampleRate) Hz")
        }
        return ResidentPiperVoice(synthesizer: SpeechSynthesizer(voice: model, config: config))
    }
}
