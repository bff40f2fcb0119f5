import Foundation
import Imaging
import Models
import TestSupport
import Testing

/// The ONNX graph executor on the PP-OCR models against onnxruntime's raw outputs in
/// golden/vision2/ocr: det probability maps from the stored det inputs, and the rec example.
/// The README measured onnxruntime against itself with graph optimizations off: det
/// probabilities move by up to 3.6e-4 and rec scores by 1.3e-6 from summation order alone, so the
/// bounds below sit a little above what another summation order gives.
@Suite(.serialized) struct ONNXGraphGoldenTests {
    /// Max |ours - onnxruntime| over a det probability map.
    static let detTolerance: Float = 2e-3
    /// Max |ours - onnxruntime| over the rec example's (1, 40, 6625) probabilities.
    static let recTolerance: Float = 1e-4

    @Test(arguments: ["p02_paragraph_serif", "p04_receipt"])
    func `det probability map matches onnxruntime`(name: String) throws {
        let graph = try ONNXGraph(path: try OCRGolden.model("ch_PP-OCRv4_det_infer.onnx"))
        let image = try ImageDecoder().decode(fileAt: OCRGolden.path("det_\(name)_input.png")).image
        let input = GraphTensor(shape: [1, 3, image.height, image.width], floats: OCRGolden.bgrInput(image, lut: try OCRGolden.lut("det")))
        let started = Date()
        let output = try graph.run(["x": input], threads: 2)
        let seconds = Date().timeIntervalSince(started)
        let reference = try OCRGolden.npy("det_\(name)_prob.npy")
        let result = try #require(output[graph.outputNames[0]])
        #expect(result.shape == reference.shape)
        let values = try #require(result.floats)
        try #require(values.count == reference.values.count)
        let worst = zip(values, reference.values).map { abs($0 - $1) }.max() ?? .infinity
        print("det \(name) \(result.shape): max abs error \(worst) (\(String(format: "%.2f", seconds)) s, 2 threads)")
        #expect(worst <= Self.detTolerance)
        GoldenRecords.checked(in: Self.self)
    }

    @Test func `rec example matches onnxruntime and decodes TOTAL`() throws {
        let graph = try ONNXGraph(path: try OCRGolden.model("ch_PP-OCRv4_rec_infer.onnx"))
        let input = try OCRGolden.npy("rec_p04_receipt_10_input.npy")
        let output = try graph.run(["x": GraphTensor(shape: input.shape, floats: input.values)], threads: 2)
        let reference = try OCRGolden.npy("rec_p04_receipt_10_output.npy")
        let result = try #require(output[graph.outputNames[0]])
        #expect(result.shape == reference.shape)
        let values = try #require(result.floats)
        try #require(values.count == reference.values.count)
        let worst = zip(values, reference.values).map { abs($0 - $1) }.max() ?? .infinity
        print("rec p04_receipt_10 \(result.shape): max abs error \(worst)")
        #expect(worst <= Self.recTolerance)
        // Same argmax at every time step as onnxruntime.
        let classes = reference.shape[2]
        for t in 0..<reference.shape[1] {
            let ours = values[(t * classes)..<((t + 1) * classes)], theirs = reference.values[(t * classes)..<((t + 1) * classes)]
            #expect(ours.firstIndex(of: ours.max()!) == theirs.firstIndex(of: theirs.max()!), "step \(t)")
        }
        #expect(graph.metadata["character"]?.split(separator: "\n", omittingEmptySubsequences: false).count == 6623)
        GoldenRecords.checked(in: Self.self)
    }

    @Test func `all three PP-OCR graphs load`() throws {
        for name in ["ch_PP-OCRv4_det_infer.onnx", "ch_ppocr_mobile_v2.0_cls_infer.onnx", "ch_PP-OCRv4_rec_infer.onnx"] {
            let graph = try ONNXGraph(path: try OCRGolden.model(name))
            #expect(graph.inputNames == ["x"], "\(name)")
        }
    }

    /// A one-node model: ModelProto { ir_version 7, graph { node { input "x", output "y", name, op_type } } }.
    static func oneNodeModel(op: String, name: String) -> [UInt8] {
        func field(_ number: UInt8, _ payload: [UInt8]) -> [UInt8] { [number << 3 | 2, UInt8(payload.count)] + payload }
        let node = field(1, Array("x".utf8)) + field(2, Array("y".utf8)) + field(3, Array(name.utf8)) + field(4, Array(op.utf8))
        return [0x08, 7] + field(7, field(1, node))
    }

    @Test func `an unsupported operator is refused at load, naming the node`() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.file("erf.onnx")
        try Data(Self.oneNodeModel(op: "Erf", name: "erf_0")).write(to: URL(fileURLWithPath: path))
        #expect(throws: ModelError.unsupportedNode(node: "erf_0", op: "Erf")) { try ONNXGraph(path: path) }
        try Data(Self.oneNodeModel(op: "Relu", name: "relu_0")).write(to: URL(fileURLWithPath: path))
        let graph = try ONNXGraph(path: path)
        let out = try graph.run(["x": GraphTensor(shape: [3], floats: [-1, 0, 2])], threads: 1)
        // The graph declares no outputs, so nothing is returned, but the node ran.
        #expect(out.isEmpty)
    }

    @Test func `a crafted reshape to an enormous shape is an error naming the node, not a crash`() throws {
        func varint(_ value: UInt64) -> [UInt8] {
            var v = value, out: [UInt8] = []
            while v >= 0x80 { out.append(UInt8(v & 0x7F) | 0x80); v >>= 7 }
            return out + [UInt8(v)]
        }
        func bytes(_ number: UInt64, _ payload: [UInt8]) -> [UInt8] { varint(number << 3 | 2) + varint(UInt64(payload.count)) + payload }
        func text(_ number: UInt64, _ value: String) -> [UInt8] { bytes(number, Array(value.utf8)) }
        // TensorProto { dims [2], data_type INT64, int64_data [2^40, 2^40] }
        let tensor = varint(1 << 3) + varint(2) + varint(2 << 3) + varint(7) + bytes(7, varint(1 << 40) + varint(1 << 40))
        let attribute = text(1, "value") + bytes(5, tensor)
        let constant = text(2, "s") + text(3, "c") + text(4, "Constant") + bytes(5, attribute)
        let reshape = text(1, "x") + text(1, "s") + text(2, "y") + text(3, "reshape_0") + text(4, "Reshape")
        let graph = bytes(1, constant) + bytes(1, reshape) + bytes(11, text(1, "x")) + bytes(12, text(1, "y"))
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.file("reshape.onnx")
        try Data([0x08, 7] + bytes(7, graph)).write(to: URL(fileURLWithPath: path))
        let loaded = try ONNXGraph(path: path)
        #expect(loaded.inputNames == ["x"] && loaded.outputNames == ["y"])
        #expect(throws: ModelError.self) { try loaded.run(["x": GraphTensor(shape: [4], floats: [1, 2, 3, 4])], threads: 1) }
        do {
            _ = try loaded.run(["x": GraphTensor(shape: [4], floats: [1, 2, 3, 4])], threads: 1)
        } catch {
            guard case .invalidGraphValue(let node, _) = error else { Issue.record("\(error)"); return }
            #expect(node == "reshape_0")
        }
    }
}
