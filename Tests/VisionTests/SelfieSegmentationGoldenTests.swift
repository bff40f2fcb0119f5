import Foundation
import Formats
import Imaging
import Models
import Tensor
import Photos
import TestSupport
import Testing

/// The selfie segmenter against MediaPipe's selfie segmentation (golden/vision2/faces): the
/// network on MediaPipe's own 256 × 256 input tensors.
@Suite(.serialized) struct SelfieSegmentationGoldenTests {
    /// Mask values (0...1) on MediaPipe's exact input: another TFLite runtime (ai-edge-litert with
    /// XNNPACK) differs from MediaPipe by up to 1.2e-4 (tolerances.json); measured 7.9e-6 (f01) and
    /// 8.8e-5 (f06).
    static let rawTolerance: Float = 5e-4

    static func model() throws -> SelfieSegmenter {
        let path = try #require(TestModels.path("selfie_segmentation.tflite"),
                                "run scripts/fetch-models.py mediapipe-selfie-segmentation")
        return try SelfieSegmenter(path: path)
    }

    @Test func `the segmentation network matches MediaPipe on its own inputs`() throws {
        let segmenter = try Self.model()
        let records = try FacesGolden.records()
        var checked = 0
        for name in ["f01_astronaut", "f06_astronaut_rot90cw"] {
            let record = try #require(records.first { $0.file.hasSuffix("/\(name).png") })
            let seg = try #require(record.raw["segmentation"] as? [String: Any])
            let image = try FacesGolden.decode("faces/raw/\(name)_seg_input.png")
            let input = ImageToTensor.tensor(image, table: ImageToTensor.zeroToOne)
            #expect(FacesGolden.sha256(input) == seg["input_f32_sha256"] as? String, "\(name)")
            let mask = try segmenter.run(input, threads: 2)
            let reference = try FacesGolden.npy("faces/raw/\(name)_seg_output.npy")
            #expect(reference.shape == [1, 256, 256, 1])
            let worst = zip(mask, reference.values).map { abs($0 - $1) }.max() ?? .infinity
            let mean = zip(mask, reference.values).map { abs($0 - $1) }.reduce(0, +) / Float(max(mask.count, 1))
            print("selfie segmentation \(name): max |mask - mediapipe| \(worst), mean \(mean)")
            #expect(mask.count == reference.values.count && worst <= Self.rawTolerance, "\(name)")
            checked += 1
        }
        GoldenRecords.checked(checked, in: Self.self)
    }
}

extension SelfieSegmentationGoldenTests {
    /// Mask figures from the image files (our stretch, network and resize): mean and the share of
    /// pixels over 0.5 are rounded to 6 decimals in faces.jsonl. Measured on the nine images: mean
    /// within 1.1e-6, share over 0.5 equal to 6 decimals, the 8-bit masks of f01/f06 within 1 level.
    static let meanTolerance = 2e-5
    static let shareTolerance = 1e-3

    @Test func `person masks match MediaPipe from the image files`() throws {
        let segmenter = try Self.model()
        var checked = 0
        for record in try FacesGolden.records() {
            let seg = try #require(record.raw["segmentation"] as? [String: Any])
            let image = try FacesGolden.decode(record.file)
            let mask = try PersonMask.segment(image, model: segmenter, threads: 2)
            let mean = mask.reduce(0.0) { $0 + Double($1) } / Double(mask.count)
            let share = Double(mask.filter { $0 > 0.5 }.count) / Double(mask.count)
            let goldenMean = try #require((seg["mean"] as? NSNumber)?.doubleValue)
            let goldenShare = try #require((seg["frac_gt_0.5"] as? NSNumber)?.doubleValue)
            var pngDiff = -1
            let name = (record.file as NSString).lastPathComponent.replacingOccurrences(of: ".png", with: "")
            if FileManager.default.fileExists(atPath: FacesGolden.root.appendingPathComponent("faces/raw/\(name)_seg_mask.png").path) {
                let png = try FacesGolden.decode("faces/raw/\(name)_seg_mask.png")
                #expect(png.width == image.width && png.height == image.height)
                pngDiff = zip(mask, stride(from: 0, to: png.pixels.count, by: 3)).map { v, i in
                    abs(Int((255 * v).rounded()) - Int(png.pixels[i]))
                }.max() ?? 255
                #expect(pngDiff <= 1, "\(record.file)")
                // Our PNG encoding of the mask decodes to the same 8-bit levels.
                let encoded = try PersonMask.png(mask, width: image.width, height: image.height)
                let decoded = try ImageDecoder().decode(bytes: encoded, file: "mask.png").image
                let levels = stride(from: 0, to: decoded.pixels.count, by: 3).map { decoded.pixels[$0] }
                #expect(levels == mask.map { UInt8((255 * $0).rounded()) }, "\(record.file)")
            }
            print(String(format: "person mask %@: mean %.6f (golden %.6f), >0.5 %.6f (golden %.6f), 8-bit mask max |d| %d",
                         record.file, mean, goldenMean, share, goldenShare, pngDiff))
            #expect(mask.count == image.width * image.height)
            #expect(abs(mean - goldenMean) <= Self.meanTolerance, "\(record.file)")
            #expect(abs(share - goldenShare) <= Self.shareTolerance, "\(record.file)")
            #expect(mask.allSatisfy { $0 >= 0 && $0 <= 1 }, "\(record.file)")
            checked += 1
        }
        GoldenRecords.checked(checked, in: Self.self)
    }
}

extension SelfieSegmentationGoldenTests {
    /// Crafted files: random bytes changed in the selfie model (its custom operator's option bytes,
    /// the new operators' options and shapes) either compile and run or fail with a typed error.
    @Test func `mutated selfie segmenter files run or fail with typed errors`() throws {
        let path = try #require(TestModels.path("selfie_segmentation.tflite"),
                                "run scripts/fetch-models.py mediapipe-selfie-segmentation")
        let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var rng = SeededGenerator(seed: 23)
        var ran = 0, refused = 0
        for round in 0..<60 {
            var bytes = original
            let span = round % 2 == 0 ? 8192 : bytes.count
            for _ in 0..<Int.random(in: 1...8, using: &rng) {
                bytes[Int.random(in: 0..<span, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            }
            let region = bytes.withUnsafeBytes { MappedRegion(copying: $0, name: "mutated.tflite") }
            do {
                let graph = try TFLiteGraph(model: try TFLiteModel(region: region))
                let input = [Float](repeating: 0.5, count: graph.shapes[graph.input].reduce(1, *))
                _ = try graph.run(input, threads: 2)
                ran += 1
            } catch {
                refused += 1
            }
        }
        print("mutated selfie segmenter: \(ran) ran, \(refused) refused with typed errors")
        #expect(ran + refused == 60 && ran > 0 && refused > 0)
    }
}
