import Foundation
import Formats
import Models
import Tensor
import Testing
import TestSupport

/// The TFLite graph engine: each operator on a small written graph against values worked by
/// hand, BlazeFace's raw outputs against MediaPipe's (golden/vision2/faces/raw), and the
/// operators and shapes it refuses.
@Suite struct TFLiteGraphTests {
    static func graph(_ w: TFLiteWriter) throws -> TFLiteGraph {
        let bytes = w.bytes()
        let region = bytes.withUnsafeBytes { MappedRegion(copying: $0, name: "t.tflite") }
        return try TFLiteGraph(model: try TFLiteModel(region: region))
    }

    /// x (1,3,3,1) → PAD(1 on every side of H and W) → DEPTHWISE 3x3 stride 1 VALID (kernel all 1,
    /// f16 weights through DEQUANTIZE, bias 0.5) → ADD x (fused RELU) → MAX_POOL 2x2 stride 1
    /// VALID → CONV_2D 1x1 to 2 channels (weights 1 and -1) → RESHAPE (1,8) → CONCAT with itself.
    static func smallGraph() -> TFLiteWriter {
        var w = TFLiteWriter()
        let pad = w.addOpcode(34), deq = w.addOpcode(6), dw = w.addOpcode(4), add = w.addOpcode(0)
        let pool = w.addOpcode(17), conv = w.addOpcode(3), reshape = w.addOpcode(22), concat = w.addOpcode(2)
        let pb = w.addBuffer(int32s: [0, 0, 1, 1, 1, 1, 0, 0]), hb = w.addBuffer(halves: [Float](repeating: 1, count: 9))
        let bb = w.addBuffer(floats: [0.5]), cb = w.addBuffer(floats: [1, -1])
        let x = w.addTensor(.init(name: "x", shape: [1, 3, 3, 1]))
        let p = w.addTensor(.init(name: "paddings", shape: [4, 2], type: 2, buffer: pb))
        let xp = w.addTensor(.init(name: "xp", shape: [1, 5, 5, 1]))
        let kh = w.addTensor(.init(name: "k16", shape: [1, 3, 3, 1], type: 1, buffer: hb))
        let k = w.addTensor(.init(name: "k", shape: [1, 3, 3, 1]))
        let b = w.addTensor(.init(name: "b", shape: [1], buffer: bb))
        let d = w.addTensor(.init(name: "d", shape: [1, 3, 3, 1]))
        let s = w.addTensor(.init(name: "s", shape: [1, 3, 3, 1]))
        let m = w.addTensor(.init(name: "m", shape: [1, 2, 2, 1]))
        let cw = w.addTensor(.init(name: "cw", shape: [2, 1, 1, 1], buffer: cb))
        let c = w.addTensor(.init(name: "c", shape: [1, 2, 2, 2]))
        let r = w.addTensor(.init(name: "r", shape: [1, 8]))
        let out = w.addTensor(.init(name: "out", shape: [1, 16]))
        w.inputs = [x]
        w.outputs = [out, m]
        w.operators = [
            .init(opcodeIndex: pad, inputs: [x, p], outputs: [xp], optionsType: 22, options: []),
            .init(opcodeIndex: deq, inputs: [kh], outputs: [k]),
            .init(opcodeIndex: dw, inputs: [xp, k, b], outputs: [d], optionsType: 2,
                  options: [.int8(1), .int32(1), .int32(1), .int32(1), .int8(0)]),
            .init(opcodeIndex: add, inputs: [d, x], outputs: [s], optionsType: 11, options: [.int8(1)]),
            .init(opcodeIndex: pool, inputs: [s], outputs: [m], optionsType: 5,
                  options: [.int8(1), .int32(1), .int32(1), .int32(2), .int32(2), .int8(0)]),
            .init(opcodeIndex: conv, inputs: [m, cw, -1], outputs: [c], optionsType: 1,
                  options: [.int8(1), .int32(1), .int32(1), .int8(0)]),
            .init(opcodeIndex: reshape, inputs: [c], outputs: [r], optionsType: 17, options: [.int32s([1, 8])]),
            .init(opcodeIndex: concat, inputs: [r, r], outputs: [out], optionsType: 10, options: [.int32(-1), .int8(0)]),
        ]
        return w
    }

    @Test func `each operator computes what TFLite defines`() throws {
        let graph = try Self.graph(Self.smallGraph())
        let x: [Float] = [1, -2, 3, -4, 5, -6, 7, -8, 9]
        let outputs = try graph.run(x, threads: 1)
        // Box sums of the zero-padded x plus 0.5, then + x, then ReLU.
        let box: [Float] = [0, -3, 0, -1, 5, 1, 0, 3, 0]
        let sum = zip(box, x).map { max($0 + 0.5 + $1, 0) }
        let m = [max(sum[0], sum[1], sum[3], sum[4]), max(sum[1], sum[2], sum[4], sum[5]),
                 max(sum[3], sum[4], sum[6], sum[7]), max(sum[4], sum[5], sum[7], sum[8])]
        #expect(outputs[1] == m)
        let c = m.flatMap { [$0, -$0] }
        #expect(outputs[0] == c + c)
        #expect(throws: ModelError.shapeMismatch(tensor: "x", expected: [1, 3, 3, 1], found: [8])) {
            try graph.run([Float](repeating: 0, count: 8), threads: 1)
        }
    }

    /// x (1,1,2,1) = [1, 2] → RESIZE_BILINEAR to width 4 under each of TFLite's coordinate rules,
    /// worked by hand: aligned corners sample at 0, 1/3, 2/3, 1; half-pixel centres at −0.25 (the
    /// edge), 0.25, 0.75, 1.25 (the edge); plain at 0, 0.5, 1, 1.5 (the edge).
    @Test func `RESIZE_BILINEAR follows TFLite's coordinate rules`() throws {
        for (align, half, expected) in [(true, false, [1, 4.0 / 3, 5.0 / 3, 2]), (false, true, [1, 1.25, 1.75, 2]),
                                        (false, false, [1, 1.5, 2, 2])] as [(Bool, Bool, [Float])] {
            var w = TFLiteWriter()
            let resize = w.addOpcode(23)
            let sb = w.addBuffer(int32s: [1, 4])
            let x = w.addTensor(.init(name: "x", shape: [1, 1, 2, 1]))
            let size = w.addTensor(.init(name: "size", shape: [2], type: 2, buffer: sb))
            let y = w.addTensor(.init(name: "y", shape: [1, 1, 4, 1]))
            w.inputs = [x]
            w.outputs = [y]
            w.operators = [.init(opcodeIndex: resize, inputs: [x, size], outputs: [y], optionsType: 15,
                                 options: [.int32(0), .int32(0), .int8(align ? 1 : 0), .int8(half ? 1 : 0)])]
            let out = try Self.graph(w).run([1, 2], threads: 1)[0]
            #expect(zip(out, expected).allSatisfy { abs($0 - $1) < 1e-6 }, "align \(align) half \(half): \(out)")
        }
    }

    @Test func `operators and shapes the engine cannot run exactly are refused`() throws {
        var w = Self.smallGraph()
        w.tensors[12].shape = [1, 17]
        #expect(throws: ModelError.shapeMismatch(tensor: "out", expected: [1, 16], found: [1, 17])) { try Self.graph(w) }
        w = Self.smallGraph()
        w.opcodes[0] = 25  // SOFTMAX where PAD was
        #expect(throws: ModelError.unsupportedOperator(index: 0, op: "SOFTMAX", reason: "not implemented by this engine")) {
            try Self.graph(w)
        }
        w = Self.smallGraph()
        w.operators.swapAt(2, 3)  // ADD reads d before the convolution writes it
        #expect(throws: ModelError.unsupportedOperator(index: 2, op: "ADD", reason: "reads tensor 'd' before any operator writes it")) {
            try Self.graph(w)
        }
        w = Self.smallGraph()
        w.operators[4].options = [.int8(1), .int32(1), .int32(2), .int32(2), .int32(2), .int8(0)]
        #expect(throws: ModelError.self) { try Self.graph(w) }
        w = Self.smallGraph()
        w.operators[2].options = [.int8(1), .int32(1), .int32(1), .int32(1), .int8(4)]  // fused TANH
        #expect(throws: ModelError.unsupportedOperator(index: 2, op: "DEPTHWISE_CONV_2D", reason: "fused activation tanh is not implemented")) {
            try Self.graph(w)
        }
    }

    @Test func `mutated BlazeFace files compile and run, or fail with typed errors`() throws {
        let path = try #require(TestModels.path("face_detection_short_range.tflite"),
                                "run scripts/fetch-models.py mediapipe-face-detection-short")
        let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var rng = SeededGenerator(seed: 22)
        var ran = 0, refused = 0
        for round in 0..<200 {
            var bytes = original
            // Half the rounds hit the first 4 KB, where the flatbuffer's tables and vtables start.
            let span = round % 2 == 0 ? 4096 : bytes.count
            for _ in 0..<Int.random(in: 1...8, using: &rng) {
                bytes[Int.random(in: 0..<span, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            }
            let region = bytes.withUnsafeBytes { MappedRegion(copying: $0, name: "mutated.tflite") }
            do {
                let graph = try TFLiteGraph(model: try TFLiteModel(region: region))
                let input = [Float](repeating: 0.5, count: graph.shapes[graph.input].reduce(1, *))
                _ = try graph.run(input, threads: 1)
                ran += 1
            } catch {
                refused += 1
            }
        }
        print("mutated BlazeFace: \(ran) ran, \(refused) refused with typed errors")
        #expect(ran + refused == 200 && ran > 0 && refused > 0)
    }

    /// BlazeFace short range on MediaPipe's own input tensors (the warped uint8 images through the
    /// [-1, 1] value table): regressors and classificator logits against MediaPipe's raw outputs.
    /// Other TFLite kernel sets move them by up to 1.5e-4 / 6.7e-4 (README, tolerances.json).
    @Test func `BlazeFace raw outputs match MediaPipe on the stored input tensors`() throws {
        let path = try #require(TestModels.path("face_detection_short_range.tflite"),
                                "run scripts/fetch-models.py mediapipe-face-detection-short")
        let graph = try TFLiteGraph(model: try TFLiteModel(path: path))
        let lut = try FacesGolden.lut("lut_minus1_1")
        let records = try FacesGolden.records()
        var checked = 0
        for name in ["f01_astronaut", "f06_astronaut_rot90cw"] {
            let record = try #require(records.first { $0.file.hasSuffix("/\(name).png") })
            let image = try FacesGolden.decode("faces/raw/\(name)_det_input.png")
            try #require(image.width == 128 && image.height == 128)
            let input = image.pixels.map { lut[Int($0)] }
            #expect(FacesGolden.sha256(input) == record.inputSHA256, "\(name) input tensor")
            let outputs = try graph.run(input, threads: 2)
            let regressors = try FacesGolden.npy("faces/raw/\(name)_det_regressors.npy")
            let logits = try FacesGolden.npy("faces/raw/\(name)_det_classificators.npy")
            #expect(regressors.shape == [1, 896, 16] && logits.shape == [1, 896, 1])
            let r = zip(outputs[0], regressors.values).map { abs($0 - $1) }.max() ?? .infinity
            let c = zip(outputs[1], logits.values).map { abs($0 - $1) }.max() ?? .infinity
            print("blazeface \(name): max |regressors - mediapipe| \(r), max |logits - mediapipe| \(c)")
            #expect(outputs[0].count == 896 * 16 && outputs[1].count == 896)
            #expect(r < Self.regressorTolerance && c < Self.logitTolerance, "\(name)")
            checked += 1
        }
        GoldenRecords.checked(checked, in: Self.self)
    }

    /// Measured 1.4e-4 (regressors) and 4.7e-4 (logits), in the range of TFLite's own kernel sets.
    static let regressorTolerance: Float = 1e-3
    static let logitTolerance: Float = 2e-3
}
