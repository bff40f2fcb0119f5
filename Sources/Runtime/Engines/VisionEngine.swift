import Foundation
import Formats
import Models
import ModelStore

/// Image models: EfficientNet-Lite0 from its PyTorch state dict (`efficientnet-lite0`), the
/// network behind `classify` and the photo features' neural descriptors, MediaPipe's face
/// detector, mesh and selfie segmenter from their TFLite files, and the PP-OCR networks
/// (`ppocr-v4-det`, `-cls`, `-rec`) from their ONNX files.
package struct VisionEngine: ModelEngine {
    package init() {}
    package var kind: ModelKind { .vision }

    package func loader(for entry: CatalogEntry, in directory: String, options: LoadOptions) throws(RuntimeError) -> any ResidentModelLoading {
        if let file = entry.files.first(where: { $0.name.hasSuffix(".onnx") }) {
            return ONNXGraphLoader(modelId: entry.id, path: directory + "/" + file.name)
        }
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
    package static var kind: ModelKind { .vision }
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
    package static var kind: ModelKind { .vision }
    package let model: Network

    package init(model: Network) { self.model = model }

    package var residentBytes: Int { model.residentBytes }
}

package typealias ResidentFaceDetector = ResidentTFLiteNetwork<BlazeFace>
package typealias ResidentFaceMesh = ResidentTFLiteNetwork<FaceMesh>
package typealias ResidentSelfieSegmenter = ResidentTFLiteNetwork<SelfieSegmenter>

/// Loads an ONNX image network (the PP-OCR detector, direction classifier or recogniser) for
/// the residency cache: the weights are decoded into arrays and the file released.
///
/// The estimate is the file (float32 weights, decoded one for one) plus the activations of the
/// largest input the text reader makes. Those are the detector's: the reader caps a photo's
/// long side at 2,000 pixels and pads text bands to an aspect of at most 8, so the detector sees
/// at most about 4.3 M pixels (736 × 5,888). `ondevice ocr` on such images (2,000 × 2,000,
/// 5,888 × 736 and 736 × 5,888, one thread) peaked at 507–532 MB resident against 63 MB for the
/// process before any model loads; 448 MiB covers that difference with the weights and the
/// decoded image taken out. The classifier and recogniser run after the detector's values are
/// dropped and stay under its peak, so they are charged their weights and a small bound
/// (a 48-pixel-high line of up to 5,888 pixels, 64 channels, twice).
package struct ONNXGraphLoader: ResidentModelLoading {
    package let modelId: String
    package let path: String

    package var kind: ModelKind { .vision }

    static let detectorScratch = 448 << 20
    static let lineScratch = 2 * 48 * 5_888 * 64 * MemoryLayout<Float>.size

    package func estimate() throws(RuntimeError) -> MemoryEstimate {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        guard let bytes = (attributes?[.size] as? NSNumber)?.intValue else {
            throw .load(modelId: modelId, reason: "cannot read \(path)")
        }
        let detector = (path as NSString).lastPathComponent.contains("_det")
        return MemoryEstimate(weightBytes: bytes, scratchBytes: detector ? Self.detectorScratch : Self.lineScratch)
    }

    package func load() async throws(RuntimeError) -> ResidentONNXGraph {
        do {
            return ResidentONNXGraph(graph: try ONNXGraph(path: path))
        } catch {
            throw .load(modelId: modelId, reason: "\(error)")
        }
    }
}

/// An ONNX network held by the residency cache: immutable, so any number of ops run it at once.
package final class ResidentONNXGraph: ResidentModel {
    package static var kind: ModelKind { .vision }
    package let graph: ONNXGraph

    package init(graph: ONNXGraph) { self.graph = graph }

    package var residentBytes: Int { graph.weightBytes }
}

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
