import Foundation
import Formats
import TestSupport
import Testing

/// The ONNX reader on small hand-encoded models: what it reads, and the typed errors truncated
/// and mis-typed files give.
@Suite struct PiperONNXReaderTests {
    /// Protobuf encoding of the few field kinds the fixtures need.
    struct Proto {
        var bytes: [UInt8] = []

        mutating func varint(_ value: UInt64) {
            var v = value
            while v >= 0x80 {
                bytes.append(UInt8(v & 0x7F) | 0x80)
                v >>= 7
            }
            bytes.append(UInt8(v))
        }
        mutating func key(_ field: Int, _ wire: Int) { varint(UInt64(field << 3 | wire)) }
        mutating func int(_ field: Int, _ value: Int) { key(field, 0); varint(UInt64(value)) }
        mutating func bytes(_ field: Int, _ data: [UInt8]) { key(field, 2); varint(UInt64(data.count)); bytes += data }
        mutating func string(_ field: Int, _ text: String) { bytes(field, Array(text.utf8)) }
        mutating func message(_ field: Int, _ inner: Proto) { bytes(field, inner.bytes) }
        mutating func packed(_ field: Int, _ values: [Int]) {
            var inner = Proto()
            for v in values { inner.varint(UInt64(v)) }
            bytes(field, inner.bytes)
        }
    }

    static func tensor(name: String = "w", dims: [Int] = [2, 3], values: [Float] = [1, 2, 3, 4, 5, 6]) -> Proto {
        var t = Proto()
        t.string(8, name)
        t.packed(1, dims)
        t.int(2, 1)  // FLOAT
        t.bytes(9, values.flatMap { withUnsafeBytes(of: $0.bitPattern.littleEndian, Array.init) })
        return t
    }

    static func model(tensor: Proto = tensor()) -> [UInt8] {
        var attribute = Proto()
        attribute.string(1, "dilations")
        attribute.packed(8, [2])
        attribute.int(20, 7)  // INTS
        var node = Proto()
        for input in ["x", "w", "b"] { node.string(1, input) }
        node.string(2, "y")
        node.string(4, "Conv")
        node.message(5, attribute)
        var graph = Proto()
        graph.message(1, node)
        graph.message(5, tensor)
        var model = Proto()
        model.int(1, 8)
        model.message(7, graph)
        return model.bytes
    }

    static func parse(_ bytes: [UInt8]) throws -> ONNXModel {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.file("model.onnx")
        FileManager.default.createFile(atPath: path, contents: Data(bytes))
        return try ONNXModel(path: path)
    }

    @Test func `reads initializers and nodes`() throws {
        let model = try Self.parse(Self.model())
        #expect(model.irVersion == 8)
        #expect(model.initializers["w"]?.dims == [2, 3])
        #expect(try model.floats("w", shape: [2, 3]) == [1, 2, 3, 4, 5, 6])
        #expect(model.nodes.count == 1)
        #expect(model.nodes.first?.opType == "Conv")
        #expect(model.nodes.first?.inputs == ["x", "w", "b"])
        #expect(model.nodes.first?.ints("dilations") == [2])
        #expect(throws: FormatError.missingTensor(name: "b")) { try model.floats("b") }
    }

    @Test func `every truncation is a typed error`() {
        let bytes = Self.model()
        for length in 1..<bytes.count {
            #expect(throws: FormatError.self, "cut at \(length)") { try Self.parse(Array(bytes[..<length])) }
        }
        // A cut inside the graph says which field ran out and where its length was read.
        #expect(throws: FormatError.truncated(field: "ModelProto.graph", offset: 3, needed: bytes.count - 4, fileSize: bytes.count - 1)) {
            try Self.parse(Array(bytes.dropLast()))
        }
    }

    @Test func `a field with the wrong wire type is rejected where it is`() {
        var bytes = Self.model()
        // The graph (field 7) written as a varint (wire 0) instead of length-delimited.
        bytes[2] = 7 << 3 | 0
        #expect(throws: FormatError.wrongWireType(field: "ModelProto.graph", expected: 2, found: 0, offset: 3)) {
            try Self.parse(bytes)
        }
        // Wire type 3 (a group) is not read at all.
        bytes[2] = 7 << 3 | 3
        #expect(throws: FormatError.wrongWireType(field: "ModelProto field 7", expected: nil, found: 3, offset: 2)) {
            try Self.parse(bytes)
        }
        // Tensor dims as fixed32 (wire 5) instead of varints.
        var tensor = Proto()
        tensor.string(8, "w")
        tensor.key(1, 5)
        tensor.bytes += [2, 0, 0, 0]
        #expect(throws: FormatError.self) { try Self.parse(Self.model(tensor: tensor)) }
        do {
            _ = try Self.parse(Self.model(tensor: tensor))
        } catch let error as FormatError {
            guard case .wrongWireType(let field, let expected, let found, _) = error else {
                Issue.record("expected wrongWireType, got \(error)")
                return
            }
            #expect(field == "TensorProto 'w'.dims" && expected == 0 && found == 5)
        } catch {
            Issue.record("expected a FormatError, got \(error)")
        }
    }

    @Test func `raw data of the wrong size is rejected`() {
        var tensor = Self.tensor(dims: [2, 4])  // 8 elements, 6 floats of data
        #expect(throws: FormatError.self) { try Self.parse(Self.model(tensor: tensor)) }
        tensor = Self.tensor(dims: [1 << 40, 1 << 40])
        #expect(throws: FormatError.invalidDimensions(name: "w", dims: [1 << 40, 1 << 40])) { try Self.parse(Self.model(tensor: tensor)) }
    }
}
