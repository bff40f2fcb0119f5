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
        Self.classes(model: model, image: image, threads: threads).ranked
            .filter { $0.probability >= minimumProbability }
            .prefix(limit)
            .map(\.name)
    }

    /// Every ImageNet class of `image`, most likely first, with the network's own time (the
    /// preprocessing before it not counted): the one classification `classify` and the labeller
    /// share.
    package static func classes(model: EfficientNetLite0, image: RGBImage, threads: Int) -> ImageClasses {
        let input = EfficientNetPreprocessing.input(from: image)
        let start = ContinuousClock.now
        let (_, logits) = model.run(input: input, threads: threads)
        let seconds = (ContinuousClock.now - start) / .seconds(1)
        let peak = Double(logits.max() ?? 0)
        let exps = logits.map { Foundation.exp(Double($0) - peak) }
        let total = exps.reduce(0, +)
        let ranked = logits.indices.sorted { logits[$0] > logits[$1] }.map {
            ImageClass(index: $0, name: ImageNetLabels.names[$0], logit: logits[$0], probability: exps[$0] / total)
        }
        return ImageClasses(ranked: ranked, networkSeconds: seconds)
    }

    /// `classes` of the image file at `path`.
    package static func classes(model: EfficientNetLite0, fileAt path: String, threads: Int) throws(PhotosError) -> ImageClasses {
        let image: RGBImage
        do { image = try ImageDecoder().decode(fileAt: path).image } catch { throw .image(error) }
        return classes(model: model, image: image, threads: threads)
    }
}

/// One ImageNet class and how likely the image shows it.
package struct ImageClass: Sendable, Equatable {
    package var index: Int
    package var name: String
    package var logit: Float
    package var probability: Double
}

/// An image's classes, most likely first, and the seconds the network ran.
package struct ImageClasses: Sendable, Equatable {
    package var ranked: [ImageClass]
    package var networkSeconds: Double
}
