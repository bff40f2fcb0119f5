import Formats
import Foundation
import Tensor
import TestSupport
import Testing

@Suite struct CTranslate2ModelTests {
    /// A CTranslate2 model.bin with the given variables (name, shape, dtype, bytes) and aliases.
    static func file(version: UInt32 = 6, variables: [(String, [UInt32], UInt8, [UInt8])],
                     aliases: [(String, String)] = []) -> [UInt8] {
        var out: [UInt8] = []
        func u8(_ v: UInt8) { out.append(v) }
        func u16(_ v: UInt16) { out += [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: UInt32) { out += (0..<4).map { UInt8((v >> (8 * $0)) & 0xFF) } }
        func string(_ s: String) { u16(UInt16(s.utf8.count + 1)); out += Array(s.utf8); u8(0) }
        u32(version); string("WhisperSpec"); u32(3); u32(UInt32(variables.count))
        for (name, shape, type, bytes) in variables {
            string(name); u8(UInt8(shape.count)); shape.forEach(u32); u8(type); u32(UInt32(bytes.count)); out += bytes
        }
        u32(UInt32(aliases.count))
        for (a, t) in aliases { string(a); string(t) }
        return out
    }

    static func open(_ bytes: [UInt8]) throws -> CTranslate2Model {
        let dir = try TemporaryDirectory()
        let path = dir.path + "/model.bin"
        FileManager.default.createFile(atPath: path, contents: Data(bytes))
        return try CTranslate2Model.open(path: path)
    }

    static let sample: [(String, [UInt32], UInt8, [UInt8])] = [
        ("w", [2, 3], 4, [UInt8](repeating: 0x3C, count: 12)),  // f16 [out 2, in 3]
        ("num_heads", [], 2, [6, 0]),
        ("b", [3], 0, [UInt8](repeating: 0, count: 12)),
    ]

    @Test func `variables, scalars and aliases are read with shapes in ggml order`() throws {
        let model = try Self.open(Self.file(variables: Self.sample, aliases: [("alias", "w")]))
        #expect(model.specName == "WhisperSpec" && model.specRevision == 3 && model.binaryVersion == 6)
        let w = try model.tensor("w")
        #expect(w.type == .f16 && w.shape == [3, 2] && w.byteCount == 12)
        #expect(model.integerScalar("num_heads") == 6)
        #expect(try model.tensor("alias").data == w.data)
        #expect(throws: FormatError.missingTensor(name: "nope")) { try model.tensor("nope") }
    }

    @Test func `the real tiny.en model.bin lists its Whisper variables`() throws {
        guard let dir = SpeechModels.tinyEnglish else { Issue.record("whisper tiny.en not installed"); return }
        let model = try CTranslate2Model.open(path: dir + "/model.bin")
        #expect(model.variables["encoder/conv1/weight"]?.shape == [384, 80, 3])
        #expect(try model.tensor("decoder/embeddings/weight").shape == [384, 51864])
        #expect(model.aliases["decoder/projection/weight"] == "decoder/embeddings/weight")
        #expect(model.integerScalar("encoder/num_heads") == 6)
    }

    @Test func `truncated, oversized and malformed files are typed errors`() throws {
        let good = Self.file(variables: Self.sample)
        for cut in [0, 3, 6, 20, 30, 40, good.count - 5] {
            #expect(throws: FormatError.self) { try Self.open(Array(good.prefix(cut))) }
        }
        #expect(throws: FormatError.invalidHeader(format: "CTranslate2", detail: "binary version 2 (4 to 6 are read)")) {
            try Self.open(Self.file(version: 2, variables: Self.sample))
        }
        // A byte count that disagrees with the shape.
        #expect(throws: FormatError.self) { try Self.open(Self.file(variables: [("x", [4], 0, [0, 0, 0, 0])])) }
        // An unknown dtype, an alias to nothing, a duplicate name.
        #expect(throws: FormatError.unsupportedTensorType(name: "x", rawType: 9)) {
            try Self.open(Self.file(variables: [("x", [1], 9, [0])]))
        }
        #expect(throws: FormatError.missingTensor(name: "ghost")) {
            try Self.open(Self.file(variables: Self.sample, aliases: [("a", "ghost")]))
        }
        #expect(throws: FormatError.duplicateTensor(name: "b")) {
            try Self.open(Self.file(variables: Self.sample + [Self.sample[2]]))
        }
        // A huge variable count is refused before anything is reserved.
        var huge = Self.file(variables: [])
        huge.replaceSubrange(22..<26, with: [0xFF, 0xFF, 0xFF, 0x7F])
        #expect(throws: FormatError.self) { try Self.open(huge) }
        var random = SystemRandomNumberGenerator()
        for _ in 0..<100 {
            var bytes = good
            for _ in 0..<3 { bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random) }
            _ = try? Self.open(bytes)  // decodes or throws; never traps
        }
    }
}
