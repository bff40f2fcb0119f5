import Foundation
import Imaging
import Models

/// What a photo shows, in words search can match: the ImageNet classes EfficientNet-Lite0 gives
/// at least `minimumProbability`, most likely first, at most `limit` ("tabby, tabby cat" for a
/// cat, "espresso" for a cup of coffee). The text index stores them beside the photo's text, so
/// photos without text are found too, by what they show. The classifier is unsure of many
/// photos; a photo whose most likely class stays under the floor gets no labels rather than a
/// wrong one.
package struct PhotoLabeller: Sendable {
    /// Names the model and the rule; entries labelled under another name are labelled again.
    package static let name = "efficientnet-lite0 imagenet, p >= 0.1, at most 3"

    package let model: EfficientNetLite0
    package let limit = 3
    package let minimumProbability = 0.1

    package init(model: EfficientNetLite0) { self.model = model }

    /// The labels of `image`, most likely first.
    package func labels(for image: RGBImage, threads: Int) -> [String] {
        let (_, logits) = model.run(input: EfficientNetPreprocessing.input(from: image), threads: threads)
        let peak = Double(logits.max() ?? 0)
        let exps = logits.map { Foundation.exp(Double($0) - peak) }
        let total = exps.reduce(0, +)
        return exps.indices
            .filter { exps[$0] / total >= minimumProbability }
            .sorted { exps[$0] > exps[$1] }
            .prefix(limit)
            .map { ImageNetLabels.names[$0] }
    }
}
