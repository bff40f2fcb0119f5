import Foundation
import Imaging
import Models
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
