import Foundation
import Formats
import Models
import ModelStore

/// Image models: EfficientNet-Lite0 from its PyTorch state dict (`efficientnet-lite0`), the
/// network behind `classify` and the photo features' neural descriptors.
package struct VisionEngine: ModelEngine {
    package init() {}
    package var kind: ModelKind { .vision }

    package func loader(for entry: CatalogEntry, in directory: String, options: LoadOptions) throws(RuntimeError) -> any ResidentModelLoading {
        try typedLoader(for: entry, in: directory, options: options)
    }

    package func typedLoader(for entry: CatalogEntry, in directory: String, options: LoadOptions) throws(RuntimeError) -> EfficientNetLoader {
        guard let file = entry.files.first(where: { $0.name.hasSuffix(".pth") || $0.name.hasSuffix(".pt") }) else {
            throw .load(modelId: entry.id, reason: "no .pth checkpoint among \(entry.files.map(\.name))")
        }
        return EfficientNetLoader(modelId: entry.id, path: directory + "/" + file.name)
    }
}

/// Loads EfficientNet-Lite0 for the residency cache. Its weights are read into folded f32 arrays
/// (batch norms folded into the convolutions) and the checkpoint mapping is released, so the
/// estimate is the checkpoint's float tensors plus one image's activations.
package struct EfficientNetLoader: ResidentModelLoading {
    package let modelId: String
    package let path: String

    package var kind: ModelKind { .vision }

    /// Floats of the largest activation pair one image needs (the 112×112×96 expansion and its
    /// depthwise output), a bound on the forward pass's scratch.
    static let activationFloats = 2 * 112 * 112 * 96

    package init(modelId: String, path: String) {
        self.modelId = modelId
        self.path = path
    }

    package func estimate() throws(RuntimeError) -> MemoryEstimate {
        let file: TorchCheckpoint
        do { file = try TorchCheckpoint.open(path: path) } catch { throw .load(modelId: modelId, reason: "\(error)") }
        let floats = file.tensorInfos.values.filter { $0.dtype == .float32 }.reduce(0) { $0 + $1.byteCount }
        return MemoryEstimate(weightBytes: floats, scratchBytes: Self.activationFloats * MemoryLayout<Float>.size)
    }

    package func load() async throws(RuntimeError) -> ResidentVisionModel {
        do {
            return ResidentVisionModel(model: try EfficientNetLite0.load(checkpoint: URL(fileURLWithPath: path)))
        } catch {
            throw .load(modelId: modelId, reason: "\(error)")
        }
    }
}

/// EfficientNet-Lite0 held by the residency cache: immutable, so any number of ops run it at
/// once. `residentBytes` is the folded weights it holds (the checkpoint is unmapped after load)
/// plus one image's activations.
package final class ResidentVisionModel: ResidentModel {
    package let model: EfficientNetLite0

    package init(model: EfficientNetLite0) { self.model = model }

    package var residentBytes: Int { model.residentBytes + EfficientNetLoader.activationFloats * MemoryLayout<Float>.size }
}
