import Foundation
import Imaging
import Models
import TestSupport
import Testing

/// EfficientNet-Lite0 against golden/vision (see its README): every preprocessing checkpoint
/// exact where the decoded pixels are (PNG always; JPEG too with libjpeg-turbo's defaults),
/// features within cosine 0.999 and the same top-5 classes for all 18 images.
@Suite(.serialized) struct EfficientNetGoldenTests {
    static let checkpoint = TestModels.path("efficientnet-lite0-57934424.pth")

    @Test func `preprocessing matches every golden checkpoint, bit for bit`() throws {
        for record in try VisionGolden.records() {
            let image = try VisionGolden.decode(record.file)
            let (w, h) = EfficientNetPreprocessing.resizedSize(width: image.width, height: image.height)
            #expect([w, h] == record.resizedSize, "\(record.file)")
            let resized = EfficientNetPreprocessing.resize(image, width: w, height: h)
            let crop = EfficientNetPreprocessing.centerCrop(resized)
            let hwc = EfficientNetPreprocessing.normalized(crop)
            #expect(VisionGolden.sha256(resized.pixels) == record.resizedSHA256, "\(record.file) resized")
            #expect(VisionGolden.sha256(crop.pixels) == record.cropSHA256, "\(record.file) crop")
            #expect(VisionGolden.sha256(VisionGolden.bytes(hwc)) == record.inputSHA256, "\(record.file) input")
            // The network input is the same values in NCHW order.
            let nchw = EfficientNetPreprocessing.input(from: image)
            #expect(nchw[0] == hwc[0] && nchw[224 * 224] == hwc[1] && nchw[2 * 224 * 224 + 5] == hwc[5 * 3 + 2])
        }
    }

    @Test(.enabled(if: checkpoint != nil)) func `features and top-5 classes match torch on all golden images`() throws {
        let model = try EfficientNetLite0.load(checkpoint: URL(fileURLWithPath: try #require(Self.checkpoint)))
        var lowest: Float = 1
        for record in try VisionGolden.records() {
            let input = EfficientNetPreprocessing.input(from: try VisionGolden.decode(record.file))
            let (feature, logits) = model.run(input: input, threads: 2)
            #expect(feature.count == 1280 && logits.count == 1000)
            let norm = feature.reduce(0) { $0 + $1 * $1 }.squareRoot()
            let cosine = zip(feature, record.feature).reduce(0) { $0 + $1.0 * $1.1 } / norm
            lowest = min(lowest, cosine)
            #expect(cosine >= 0.999, "\(record.file): cosine \(cosine)")
            #expect(abs(norm - record.featureNorm) <= 1e-3 * record.featureNorm, "\(record.file): norm \(norm)")
            let top5 = logits.indices.sorted { logits[$0] > logits[$1] }.prefix(5)
            #expect(Array(top5) == record.top5.map(\.id), "\(record.file)")
            for (id, logit) in record.top5 { #expect(abs(logits[id] - logit) < 1e-2, "\(record.file) class \(id)") }
        }
        print("EfficientNet-Lite0 golden: lowest cosine \(lowest)")
    }

    @Test(.enabled(if: checkpoint != nil)) func `one and two threads give the same features`() throws {
        let model = try EfficientNetLite0.load(checkpoint: URL(fileURLWithPath: try #require(Self.checkpoint)))
        let input = EfficientNetPreprocessing.input(from: try VisionGolden.decode("images/p02_coffee.png"))
        let one = model.run(input: input, threads: 1), two = model.run(input: input, threads: 2)
        // Rows split differently, but every output element sums in the same order.
        #expect(one.feature == two.feature && one.logits == two.logits)
        #expect(model.residentBytes > 18_000_000 && model.residentBytes < 19_000_000)
    }
}
