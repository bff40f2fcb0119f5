import Formats
import Foundation
import ModelStore
import Models
import Speech

/// Silero VAD from its safetensors export (`silero_vad_16k.safetensors`).
package struct VoiceActivityEngine: ModelEngine {
    package init() {}
    package var kind: ModelKind { .vad }

    package func loader(for entry: CatalogEntry, in directory: String, options: LoadOptions) throws(RuntimeError) -> any ResidentModelLoading {
        try typedLoader(for: entry, in: directory, options: options)
    }

    package func typedLoader(for entry: CatalogEntry, in directory: String, options: LoadOptions) throws(RuntimeError) -> SileroVADLoader {
        guard let file = entry.files.first(where: { $0.name.hasSuffix(".safetensors") }) else {
            throw .load(modelId: entry.id, reason: "no .safetensors file among \(entry.files.map(\.name))")
        }
        return SileroVADLoader(modelId: entry.id, path: directory + "/" + file.name)
    }
}

/// Loads Silero VAD for the residency cache and estimates it from the safetensors header.
package struct SileroVADLoader: ResidentModelLoading {
    package let modelId: String
    package let path: String

    package var kind: ModelKind { .vad }

    /// Floats of one detector's recurrent state and input window: padded (640), columns (4·387),
    /// spectrum (4·258), activations (4·129), gates ×2 (512), hidden and cell (128), input (576).
    package static let detectorFloats = 640 + 4 * 387 + 4 * 258 + 4 * 129 + 2 * 512 + 2 * 128 + 576

    package init(modelId: String, path: String) {
        self.modelId = modelId
        self.path = path
    }

    /// Weights: the mapped file. Scratch: the vectors copied to the heap at load (biases, the
    /// final projection) and one detector's state.
    package func estimate() throws(RuntimeError) -> MemoryEstimate {
        let file: SafetensorsFile
        do { file = try SafetensorsFile.open(path: path) } catch { throw .load(modelId: modelId, reason: "\(error)") }
        let copied = file.tensorInfos.values.filter { $0.shape.count <= 1 || $0.name.hasPrefix("final_conv") }
            .reduce(0) { $0 + $1.byteCount }
        return MemoryEstimate(weightBytes: file.region.count,
                              scratchBytes: copied + Self.detectorFloats * MemoryLayout<Float>.size)
    }

    package func load() async throws(RuntimeError) -> ResidentVoiceActivityModel {
        let before = ProcessMemory.current()?.anonymousBytes ?? 0
        let model: SileroVADModel
        do { model = try SileroVADModel(path: path) } catch { throw .load(modelId: modelId, reason: "\(error)") }
        let after = ProcessMemory.current()?.anonymousBytes ?? before
        return ResidentVoiceActivityModel(model: model, heapBytes: after - before)
    }
}

/// Silero VAD held by the residency cache. Detectors are made per op: each owns ~20 KiB of
/// recurrent state, which is cheaper to allocate than to pool.
///
/// `residentBytes`: the whole mapping (every frame touches all weights) plus the heap the load
/// allocated, measured as the growth of anonymous resident memory, plus one detector's state.
package final class ResidentVoiceActivityModel: ResidentModel {
    package static var kind: ModelKind { .vad }
    package let model: SileroVADModel
    package let mappedBytes: Int
    package let heapBytes: Int

    package init(model: SileroVADModel, heapBytes: Int) {
        self.model = model
        self.mappedBytes = model.fileBytes
        self.heapBytes = max(0, heapBytes)
    }

    package var residentBytes: Int { mappedBytes + heapBytes + SileroVADLoader.detectorFloats * MemoryLayout<Float>.size }

    /// A fresh detector (new recording) on the shared weights.
    package func detector(options: VADOptions = VADOptions()) -> VoiceActivityDetector {
        VoiceActivityDetector(model: model, options: options)
    }
}
