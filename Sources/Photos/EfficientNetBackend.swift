import Foundation
import Imaging
import Models
import ModelStore
import Runtime

/// The neural descriptor: EfficientNet-Lite0's 1280-d pooled feature (the head activation
/// averaged over 7x7, before the classifier) of the golden preprocessing
/// (`EfficientNetPreprocessing`: Pillow-bilinear resize to 256 on the short side, 224 centre crop,
/// (x/255 - 0.5)/0.5), L2-normalized so the dot product is the cosine.
package struct EfficientNetBackend: PhotoDescribing {
    /// The runtime's hold on the model: it stays resident, and charged, while this backend lives.
    let lease: EngineLease<ResidentVisionModel>
    package var model: EfficientNetLite0 { lease.model.model }
    package let identity: DescriptorIdentity
    /// The vision golden set's README reports frames of one burst at cosine >= 0.70 and unrelated
    /// pictures at <= 0.23 with this feature; 0.5 sits between with room on both sides.
    package let sameSceneThreshold: Float = 0.5
    /// The preprocessing must see exactly the decoded pixels (no reduced JPEG decode).
    package let minimumDecodeSide: Int? = nil

    /// `fingerprint` identifies the weights (the catalog entry's fingerprint).
    package init(lease: EngineLease<ResidentVisionModel>, fingerprint: String) {
        self.lease = lease
        identity = DescriptorIdentity(name: EfficientNetBackendLoader.modelId, modelFingerprint: fingerprint,
                                      preprocessing: "pillow-bilinear256-floorcrop224-halfnorm-v1", dimension: 1280)
    }

    package func describe(_ image: RGBImage) -> PhotoDescriptor {
        // One thread per image: the service already decodes and describes images in parallel.
        let (feature, _) = model.run(input: EfficientNetPreprocessing.input(from: image), threads: 1)
        return PhotoDescriptor(identity: identity, values: PhotoDescriptor.normalized(feature))
    }
}
