import Foundation
import ModelStore
import Photos
import Runtime

extension OnDeviceAI {
    /// The `count` ImageNet classes the photo at `image` most likely shows, from EfficientNet-Lite0
    /// (`imageModel`, leased from the runtime, downloaded on first use): the network behind the
    /// photo library's neural similarity and its labels.
    ///
    /// ```swift
    /// let top = try await ai.classify(URL(fileURLWithPath: "cat.jpg"), count: 3)
    /// print(top.labels.map(\.name))
    /// ```
    public func classify(_ image: URL, count: Int = 5) async throws -> ImageClassification {
        guard count > 0 else { throw OnDeviceError.invalidArgument("count \(count): expected at least 1") }
        let modelId = configuration.imageModel
        let threads = modelThreads, path = image.path
        let classes = try await withImageModel(ResidentVisionModel.self, modelId, path: path) { resident in
            try PhotoLabeller.classes(model: resident.model, fileAt: path, threads: threads)
        }
        let labels = classes.ranked.prefix(count).map {
            ImageLabel(name: $0.name, classIndex: $0.index, probability: $0.probability, logit: $0.logit)
        }
        return ImageClassification(labels: labels, model: modelId, networkSeconds: classes.networkSeconds)
    }
}
