import Foundation
import Formats
import Models
import ModelStore

/// Image models: EfficientNet-Lite0 from its PyTorch state dict (`efficientnet-lite0`), the
/// network behind `classify` and the photo features' neural descriptors, and MediaPipe's
/// BlazeFace face detector from its TFLite file (`mediapipe-face-detection-short`).
package struct VisionEngine: ModelEngine {
    package init() {}
    package var kind: ModelKind { .vision }

    package func loader(for entry: CatalogEntry, in directory: String, options: LoadOptions) throws(RuntimeError) -> any ResidentModelLoading {
        if let file = entry.files.first(where: { $0.name.hasSuffix(".tflite") }) {
            let path = directory + "/" + file.name
            switch file.name {
            // Activation bounds: BlazeFace's 128 × 128 input peaks at 64 × 64 × 24 (room for 32);
            // the mesh's 192 × 192 crop at 96 × 96 × 32; the segmenter's 256 × 256 image at
            // 128 × 128 × 16 after the stem and its 256 × 256 up-sampled maps at the end.
            case "face_detection_short_range.tflite":
                return TFLiteNetworkLoader<BlazeFace>(modelId: entry.id, path: path,
                                                      activationFloats: 2 * 64 * 64 * 32 + 64 * 64 * 25 * 3)
            case "face_landmark.tflite":
                return TFLiteNetworkLoader<FaceMesh>(modelId: entry.id, path: path,
                                                     activationFloats: 2 * 96 * 96 * 32 + 96 * 96 * 9 * 3)
            case "selfie_segmentation.tflite":
                return TFLiteNetworkLoader<SelfieSegmenter>(modelId: entry.id, path: path,
                                                            activationFloats: 2 * 256 * 256 * 16 + 128 * 128 * 9 * 3)
            default:
                throw .load(modelId: entry.id, reason: "\(file.name): only the BlazeFace detector, the face mesh and the selfie segmenter run in this build")
            }
        }
        return try typedLoader(for: entry, in: directory, options: options)
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

/// A MediaPipe network from its TFLite file (`TFLiteGraph` underneath), as the residency cache
/// loads it.
package protocol TFLiteNetwork: Sendable {
    init(path: String) throws(ModelError)
    /// Bytes the loaded network holds: its weights as f32 and one run's activations.
    var residentBytes: Int { get }
}

extension BlazeFace: TFLiteNetwork {}
extension FaceMesh: TFLiteNetwork {}
extension SelfieSegmenter: TFLiteNetwork {}

/// Loads a MediaPipe network for the residency cache: the TFLite file is read, its float16
/// weights widened to f32 and the mapping released, so the estimate is twice the file (the f16
/// weights as f32) plus one image's activations.
package struct TFLiteNetworkLoader<Network: TFLiteNetwork>: ResidentModelLoading {
    package let modelId: String
    package let path: String
    /// Floats of the largest activation pair one input needs, im2col rows included.
    let activationFloats: Int

    package var kind: ModelKind { .vision }

    package func estimate() throws(RuntimeError) -> MemoryEstimate {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        guard let bytes = (attributes?[.size] as? NSNumber)?.intValue else {
            throw .load(modelId: modelId, reason: "cannot read \(path)")
        }
        return MemoryEstimate(weightBytes: 2 * bytes, scratchBytes: activationFloats * MemoryLayout<Float>.size)
    }

    package func load() async throws(RuntimeError) -> ResidentTFLiteNetwork<Network> {
        do {
            return ResidentTFLiteNetwork(model: try Network(path: path))
        } catch {
            throw .load(modelId: modelId, reason: "\(error)")
        }
    }
}

/// A MediaPipe network held by the residency cache: immutable, so any number of ops run it at once.
package final class ResidentTFLiteNetwork<Network: TFLiteNetwork>: ResidentModel {
    package let model: Network

    package init(model: Network) { self.model = model }

    package var residentBytes: Int { model.residentBytes }
}

package typealias ResidentFaceDetector = ResidentTFLiteNetwork<BlazeFace>
package typealias ResidentFaceMesh = ResidentTFLiteNetwork<FaceMesh>
package typealias ResidentSelfieSegmenter = ResidentTFLiteNetwork<SelfieSegmenter>

extension OnDeviceRuntime {
    /// The face detector and mesh, leased when both are installed and fit: what culling needs to
    /// rank by faces (it never downloads them); nil otherwise.
    package func faceLeases() async -> (EngineLease<ResidentFaceDetector>, EngineLease<ResidentFaceMesh>)? {
        let meshId = "mediapipe-face-landmark"
        guard (try? await capability(.faces))?.status == .ready,
              (try? await capabilities.capability(modelId: meshId, options: LoadOptions()))?.status == .ready,
              let detector = try? await lease(ResidentFaceDetector.self, modelId: Op.faces.defaultModelId, options: LoadOptions())
        else { return nil }
        guard let mesh = try? await lease(ResidentFaceMesh.self, modelId: meshId, options: LoadOptions()) else {
            await detector.release()
            return nil
        }
        return (detector, mesh)
    }
}
