import Foundation
import Formats
import Tensor
import Testing
import TestSupport

@Suite struct SafetensorsTests {
    static func file(header: String, data: [UInt8]) -> [UInt8] {
        let h = Array(header.utf8)
        var out = withUnsafeBytes(of: UInt64(h.count).littleEndian) { Array($0) }
        out += h
        out += data
        return out
    }

    static func write(_ bytes: [UInt8], in dir: TemporaryDirectory) throws -> String {
        let path = dir.file("m.safetensors")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func `tensors read zero-copy with ggml-order shapes`() throws {
        let dir = try TemporaryDirectory()
        let floats: [Float] = [1, 2, 3, 4, 5, 6]
        let data = floats.flatMap { withUnsafeBytes(of: $0.bitPattern.littleEndian) { Array($0) } }
        let header = #"{"w":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]},"__metadata__":{"format":"pt"}}"#
        let f = try SafetensorsFile.open(path: try Self.write(Self.file(header: header, data: data), in: dir))
        let t = try f.tensor("w")
        #expect(t.shape == [3, 2])
        #expect(t.type == .f32)
        #expect(t.data.assumingMemoryBound(to: Float.self)[4] == 5)
        #expect(f.metadata["format"] == "pt")
        #expect(throws: FormatError.missingTensor(name: "x")) { try f.tensor("x") }
    }

    @Test func `corrupt headers and out-of-bounds data are typed errors`() throws {
        let dir = try TemporaryDirectory()
        let cases: [[UInt8]] = [
            [1, 2, 3],
            Self.file(header: "not json", data: []),
            Self.file(header: #"{"w":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}}"#, data: [0, 0, 0, 0]),
            Self.file(header: #"{"w":{"dtype":"Q9","shape":[1],"data_offsets":[0,1]}}"#, data: [0]),
            Self.file(header: #"{"w":{"dtype":"F32","shape":[3],"data_offsets":[0,4]}}"#, data: [0, 0, 0, 0]),
            withUnsafeBytes(of: UInt64.max) { Array($0) } + [0, 0],
        ]
        for bytes in cases {
            #expect(throws: FormatError.self) { _ = try SafetensorsFile.open(path: try Self.write(bytes, in: dir)) }
        }
    }
}
