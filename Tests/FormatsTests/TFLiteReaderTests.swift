import Foundation
import Formats
import Tensor
import Testing
import TestSupport

/// The TFLite reader on MediaPipe's BlazeFace file (facts from golden/vision2/models.json) and on
/// small written files: what it reads, and the typed errors crafted and truncated files give.
@Suite struct TFLiteReaderTests {
    static func open(_ bytes: [UInt8]) throws(FormatError) -> TFLiteModel {
        let region = bytes.withUnsafeBytes { MappedRegion(copying: $0, name: "t.tflite") }
        return try TFLiteModel(region: region)
    }

    /// ADD(x, c) -> y with a constant f16 tensor c, then CONV_2D(y, w, b) -> z.
    static func writer() -> TFLiteWriter {
        var w = TFLiteWriter()
        let add = w.addOpcode(0), conv = w.addOpcode(3)
        let half = w.addBuffer(halves: [0.5]), kernel = w.addBuffer(floats: [2]), int = w.addBuffer(int32s: [7])
        let x = w.addTensor(.init(name: "x", shape: [1, 2, 2, 1]))
        let c = w.addTensor(.init(name: "c", shape: [1], type: 1, buffer: half))
        let y = w.addTensor(.init(name: "y", shape: [1, 2, 2, 1]))
        let k = w.addTensor(.init(name: "k", shape: [1, 1, 1, 1], buffer: kernel))
        _ = w.addTensor(.init(name: "b", shape: [1], type: 2, buffer: int))
        let z = w.addTensor(.init(name: "z", shape: [1, 2, 2, 1]))
        w.inputs = [x]
        w.outputs = [z]
        w.operators = [
            .init(opcodeIndex: add, inputs: [x, c], outputs: [y], optionsType: 11, options: [.int8(1)]),
            .init(opcodeIndex: conv, inputs: [y, k, -1], outputs: [z], optionsType: 1,
                  options: [.int8(1), .int32(2), .int32(3), .int8(3), nil, .int32(2)]),
        ]
        return w
    }

    @Test func `the BlazeFace file reads with its tensors, operators and options`() throws {
        let path = try #require(TestModels.path("face_detection_short_range.tflite"),
                                "run scripts/fetch-models.py mediapipe-face-detection-short")
        let model = try TFLiteModel(path: path)
        #expect(model.version == 3 && model.subgraphs.count == 1)
        #expect(model.description == "keras2tflite_facedetector-front.tflite.generated")
        #expect(model.metadata.map(\.name) == ["TFLITE_METADATA"] && model.metadata.first?.bytes == 620)
        let graph = model.subgraphs[0]
        #expect(graph.tensors.count == 250 && graph.operators.count == 164)
        var counts: [String: Int] = [:]
        for op in graph.operators { counts["\(op.opcode)", default: 0] += 1 }
        #expect(counts == ["ADD": 16, "CONCATENATION": 2, "CONV_2D": 21, "DEPTHWISE_CONV_2D": 16, "DEQUANTIZE": 74,
                           "MAX_POOL_2D": 3, "PAD": 11, "RELU": 17, "RESHAPE": 4])
        var constants: [String: Int] = [:]
        for t in graph.tensors where t.data != nil { constants["\(t.type)", default: 0] += 1 }
        #expect(constants == ["FLOAT16": 74, "INT32": 11])
        #expect(graph.inputs.map { graph.tensors[$0].name } == ["input"])
        #expect(graph.tensors[graph.inputs[0]].shape == [1, 128, 128, 3] && graph.tensors[graph.inputs[0]].type == .float32)
        #expect(graph.outputs.map { graph.tensors[$0].name } == ["regressors", "classificators"])
        #expect(graph.outputs.map { graph.tensors[$0].shape } == [[1, 896, 16], [1, 896, 1]])
        #expect(!graph.tensors.contains { $0.isQuantized })
        for op in graph.operators {
            switch op.opcode {
            case .builtin(.conv2D):
                guard case .conv2D(let c) = op.options else { Issue.record("CONV_2D without Conv2DOptions"); continue }
                #expect([1, 2].contains(c.strideW) && c.strideW == c.strideH && c.dilationW == 1)
            case .builtin(.depthwiseConv2D):
                guard case .depthwiseConv2D(let c) = op.options else { Issue.record("DEPTHWISE_CONV_2D without options"); continue }
                #expect(c.depthMultiplier == 1)
            case .builtin(.maxPool2D):
                guard case .pool2D(let p) = op.options else { Issue.record("MAX_POOL_2D without Pool2DOptions"); continue }
                #expect(p.filterW == 2 && p.strideW == 2)
            case .builtin(.reshape), .builtin(.concatenation), .builtin(.add):
                #expect(op.options != .none, "\(op.opcode) without options")
            default: break
            }
        }
        // Every FLOAT16 weight widens to finite floats; every DEQUANTIZE reads one of them.
        var widened = 0
        for op in graph.operators where op.opcode == .builtin(.dequantize) {
            let source = graph.tensors[op.inputs[0]]
            #expect(source.type == .float16 && graph.tensors[op.outputs[0]].shape == source.shape)
            let values = try model.floats(source)
            #expect(values.count == source.elementCount && values.allSatisfy(\.isFinite))
            widened += values.count
        }
        #expect(widened > 50_000)
    }

    @Test func `a written model reads back field by field`() throws {
        let model = try Self.open(Self.writer().bytes())
        let graph = model.subgraphs[0]
        #expect(graph.tensors.map(\.name) == ["x", "c", "y", "k", "b", "z"])
        #expect(graph.tensors[1].type == .float16 && graph.tensors[4].type == .int32)
        #expect(try model.floats(graph.tensors[1]) == [0.5])
        #expect(try model.floats(graph.tensors[3]) == [2])
        #expect(try model.int32s(graph.tensors[4]) == [7])
        #expect(graph.tensors[0].data == nil)
        #expect(graph.operators[0].options == .add(activation: .relu))
        #expect(graph.operators[1].inputs == [2, 3, -1])
        #expect(graph.operators[1].options == .conv2D(TFLiteConvolution(
            padding: .valid, strideW: 2, strideH: 3, dilationW: 1, dilationH: 2, depthMultiplier: 1, activation: .relu6)))
        #expect(throws: FormatError.self) { try model.int32s(graph.tensors[3]) }
        #expect(throws: FormatError.self) { try model.floats(graph.tensors[0]) }
    }

    @Test func `every truncation of a model is a typed error`() {
        let bytes = Self.writer().bytes()
        var failures = 0
        for length in 0..<bytes.count {
            do {
                _ = try Self.open(Array(bytes[..<length]))
            } catch {
                failures += 1
            }
        }
        // A prefix that still holds every object the model points at reads; all others throw.
        #expect(failures >= bytes.count / 2)
    }

    @Test func `crafted files name what is wrong and where`() throws {
        var w = Self.writer()
        w.identifier = "TFL2"
        #expect(throws: FormatError.invalidHeader(format: "TFLite", detail: "file identifier [84, 70, 76, 50] at offset 4 is not TFL3")) {
            try Self.open(w.bytes())
        }
        w = Self.writer()
        w.version = 2
        #expect(throws: FormatError.invalidHeader(format: "TFLite", detail: "schema version 2 (3 is read)")) { try Self.open(w.bytes()) }
        w = Self.writer()
        w.tensors[1].buffer = 9
        #expect(throws: FormatError.indexOutOfRange(field: "SubGraph[0].Tensor[1] 'c'.buffer", index: 9, count: 4)) {
            try Self.open(w.bytes())
        }
        w = Self.writer()
        w.operators[1].inputs = [2, 6]
        #expect(throws: FormatError.indexOutOfRange(field: "SubGraph[0].Operator[1].inputs[1]", index: 6, count: 6)) {
            try Self.open(w.bytes())
        }
        w = Self.writer()
        w.operators[0].outputs = [-1]
        #expect(throws: FormatError.indexOutOfRange(field: "SubGraph[0].Operator[0].outputs[0]", index: -1, count: 6)) {
            try Self.open(w.bytes())
        }
        w = Self.writer()
        w.operators[0].opcodeIndex = 2
        #expect(throws: FormatError.indexOutOfRange(field: "SubGraph[0].Operator[0].opcode_index", index: 2, count: 2)) {
            try Self.open(w.bytes())
        }
        w = Self.writer()
        w.tensors[3].shape = [1, 1, 2, 1]
        #expect(throws: FormatError.invalidHeader(format: "TFLite", detail: "tensor 'k' FLOAT32[1, 1, 2, 1] needs 8 bytes, its buffer 2 holds 4")) {
            try Self.open(w.bytes())
        }
        w = Self.writer()
        w.tensors[0].shape = [1, -2]
        #expect(throws: FormatError.invalidDimensions(name: "x", dims: [1, UInt64(bitPattern: -2)])) { try Self.open(w.bytes()) }
        w = Self.writer()
        w.tensors[0].type = 5
        #expect(throws: FormatError.unsupportedDType(name: "x", dtype: "TFLite TensorType 5")) { try Self.open(w.bytes()) }
        w = Self.writer()
        w.operators[1].options = [.int8(1), .int32(0), .int32(1)]
        #expect(throws: FormatError.invalidHeader(format: "TFLite", detail: "SubGraph[0].Operator[1].builtin_options.stride_w is 0, at least 1 expected")) {
            try Self.open(w.bytes())
        }
    }

    @Test func `offsets pointing outside the file are refused before they are followed`() throws {
        let good = Self.writer().bytes()
        func set(_ bytes: inout [UInt8], _ at: Int, _ value: UInt32) {
            withUnsafeBytes(of: value.littleEndian) { for (i, b) in $0.enumerated() { bytes[at + i] = b } }
        }
        var bad = good
        set(&bad, 0, UInt32(good.count + 100))  // root offset past the end
        #expect(throws: FormatError.truncated(field: "Model vtable offset", offset: good.count + 100, needed: 4, fileSize: good.count)) {
            try Self.open(bad)
        }
        let root = Int(good.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) })
        bad = good
        set(&bad, root, UInt32(bitPattern: Int32(-0x100000)))  // vtable far past the end
        #expect(throws: FormatError.truncated(field: "Model vtable", offset: root, needed: 4, fileSize: good.count)) {
            try Self.open(bad)
        }
        // Every u32 in the file set to a huge value in turn: each is an error or a model, never a crash.
        var errors = 0
        for at in stride(from: 0, to: good.count - 3, by: 4) {
            bad = good
            set(&bad, at, 0x7FFF_FFF0)
            do { _ = try Self.open(bad) } catch { errors += 1 }
        }
        #expect(errors > 10)
    }
}
