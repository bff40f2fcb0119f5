import Formats
import Foundation
import Tensor
import TestSupport
import Testing

@Suite struct TorchCheckpointTests {
    static let effnetPath = TestModels.path("efficientnet-lite0-57934424.pth")

    /// `_conv_stem.weight[1, 2, 1, 2]` as torch.load reads it.
    let stemElement: Float = -0.4181220531463623

    func values(_ checkpoint: TorchCheckpoint, _ name: String) throws -> [Float] { try checkpoint.floats(name) }

    @Test func `a hand-built legacy checkpoint reads its tensors, offsets and dtypes`() throws {
        let checkpoint = try TorchCheckpoint(data: TinyCheckpoint.legacy())
        #expect(checkpoint.layout == .legacy)
        #expect(checkpoint.names == ["w", "b", "n"])
        #expect(try values(checkpoint, "w") == TinyCheckpoint.w)
        #expect(try values(checkpoint, "b") == [0.5, -1.5, 2.25])  // storage offset 1
        let w = try checkpoint.tensor("w")
        #expect(w.shape == [3, 2] && w.type == .f32)
        let n = try checkpoint.tensor("n")
        #expect(n.type == .i64 && n.data.loadUnaligned(as: Int64.self) == 7)
    }

    @Test func `a zip checkpoint written byte by byte in this test reads the same tensors`() throws {
        // The zip is built here (ZipBuilder: stored entries, real CRCs), as torch >= 1.6 lays it out.
        var zip = ZipBuilder()
        zip.add("archive/data.pkl", TinyCheckpoint.statePickle())
        zip.add("archive/byteorder", Array("little".utf8))
        for key in ["0", "1", "2"] { zip.add("archive/data/\(key)", TinyCheckpoint.storageBytes(key)) }
        zip.add("archive/version", Array("3\n".utf8))
        let checkpoint = try TorchCheckpoint(data: zip.bytes())
        #expect(checkpoint.layout == .zip)
        #expect(checkpoint.names == ["w", "b", "n"])
        #expect(try values(checkpoint, "w") == TinyCheckpoint.w)
        #expect(try values(checkpoint, "b") == [0.5, -1.5, 2.25])
        #expect(try checkpoint.tensor("n").data.loadUnaligned(as: Int64.self) == 7)
    }

    @Test func `a zip checkpoint missing a storage entry is refused by name`() {
        var zip = ZipBuilder()
        zip.add("archive/data.pkl", TinyCheckpoint.statePickle())
        for key in ["0", "2"] { zip.add("archive/data/\(key)", TinyCheckpoint.storageBytes(key)) }
        #expect(throws: FormatError.invalidHeader(format: "torch zip", detail: "no entry for storage '1'")) {
            try TorchCheckpoint(data: zip.bytes())
        }
    }

    @Test func `a transposed tensor is indexed but not handed out as a contiguous view`() throws {
        let checkpoint = try TorchCheckpoint(data: TinyCheckpoint.legacy(state: TinyCheckpoint.statePickle(wStrides: [1, 2])))
        #expect(checkpoint.tensorInfos["w"]?.isContiguous == false)
        #expect(throws: FormatError.self) { try checkpoint.tensor("w") }
        // Shape (2, 3) with strides (1, 2): element [i][j] is storage[i + 2j].
        #expect(try checkpoint.floats("w") == [1, 3, 5, 2, 4, 6])
    }

    @Test(arguments: [("os", "system"), ("builtins", "eval"), ("torch", "load"), ("collections", "defaultdict")])
    func `globals other than the state-dict ones are refused with their offset`(global: (String, String)) {
        var p = PickleBuilder()
        p.global(global.0, global.1)
        p.op(0x29); p.op(0x52); p.stop()
        #expect(throws: FormatError.pickleGlobalRefused(module: global.0, name: global.1, offset: 2)) {
            try TorchCheckpoint(data: p.bytes)
        }
    }

    @Test func `a refused storage class inside the state dict names the byte of its GLOBAL`() throws {
        let state = TinyCheckpoint.statePickle(wGlobal: ("torch", "Tensor"))
        let bytes = TinyCheckpoint.legacy(state: state)
        let needle = Array("c" .utf8) + Array("torch\nTensor\n".utf8)
        let at = try #require((0...(bytes.count - needle.count)).first { Array(bytes[$0..<$0 + needle.count]) == needle })
        #expect(throws: FormatError.pickleGlobalRefused(module: "torch", name: "Tensor", offset: at)) {
            try TorchCheckpoint(data: bytes)
        }
    }

    @Test func `STACK_GLOBAL reaches the same allow-list`() {
        var p = PickleBuilder()
        p.op(0x8C); p.bytes += [8] + Array("builtins".utf8)  // SHORT_BINUNICODE
        p.op(0x8C); p.bytes += [4] + Array("exec".utf8)
        p.op(0x93); p.stop()
        #expect(throws: FormatError.pickleGlobalRefused(module: "builtins", name: "exec", offset: 18)) {
            try TorchCheckpoint(data: p.bytes)
        }
    }

    // INST, OBJ, NEWOBJ, NEWOBJ_EX, EXT1, PERSID (text), BINBYTES, FLOAT (text), READONLY_BUFFER.
    @Test(arguments: [UInt8(0x69), 0x6F, 0x81, 0x92, 0x82, 0x50, 0x42, 0x46, 0x98])
    func `opcodes outside the state-dict subset are refused at their offset`(opcode: UInt8) {
        var p = PickleBuilder()
        p.op(0x4E)  // NONE, so the refused opcode sits at offset 3
        p.op(opcode)
        p.bytes += [0, 0, 0, 0, 0, 0, 0, 0]
        #expect(throws: FormatError.pickleOpcodeRefused(opcode: opcode, offset: 3)) { try TorchCheckpoint(data: p.bytes) }
    }

    @Test func `a legacy checkpoint cut at every byte is refused, never misread`() {
        let full = TinyCheckpoint.legacy()
        for cut in 0..<full.count {
            #expect(throws: FormatError.self, "cut at \(cut)") { try TorchCheckpoint(data: Array(full[..<cut])) }
        }
    }

    @Test func `a zip checkpoint cut at every byte is refused, never misread`() {
        var zip = ZipBuilder()
        zip.add("archive/data.pkl", TinyCheckpoint.statePickle())
        for key in ["0", "1", "2"] { zip.add("archive/data/\(key)", TinyCheckpoint.storageBytes(key)) }
        let full = zip.bytes()
        for cut in 0..<full.count {
            #expect(throws: FormatError.self, "cut at \(cut)") { try TorchCheckpoint(data: Array(full[..<cut])) }
        }
    }

    @Test func `the EfficientNet-Lite0 checkpoint has 296 entries, 247 f32 and 49 i64`() throws {
        let checkpoint = try TorchCheckpoint.open(path: try #require(Self.effnetPath, "EfficientNet-Lite0 not installed: run scripts/setup.sh all"))
        #expect(checkpoint.layout == .legacy)
        #expect(checkpoint.names.count == 296)
        #expect(checkpoint.tensorInfos.values.filter { $0.dtype == .float32 }.count == 247)
        #expect(checkpoint.tensorInfos.values.filter { $0.dtype == .int64 }.count == 49)
        #expect(checkpoint.names.first == "_conv_stem.weight" && checkpoint.names.last == "_fc.bias")
        #expect(checkpoint.tensorInfos["_conv_stem.weight"]?.shape == [32, 3, 3, 3])
        #expect(checkpoint.tensorInfos["_blocks.15._depthwise_conv.weight"]?.shape == [1152, 1, 3, 3])
        // Values torch.load reads from the same file (torch 2.13, weights_only=True).
        #expect(try checkpoint.floats("_conv_stem.weight").prefix(3) == [-1.1103360652923584, -1.3087704181671143, -0.010156914591789246])
        #expect(try checkpoint.floats("_fc.bias").prefix(2) == [0.032053910195827484, -0.01598576083779335])
        let fc = try checkpoint.floats("_fc.weight")
        #expect(fc.count == 1_280_000 && fc[999 * 1280 + 1279] == 0.04085797071456909)
        #expect(abs(fc.reduce(0.0) { $0 + Double($1) } - -470.63256730128705) < 1e-6)
        // Convolution weights were converted from TensorFlow: OIHW shape over HWIO memory.
        #expect(checkpoint.tensorInfos["_conv_stem.weight"]?.strides == [1, 32, 288, 96])
        #expect(try checkpoint.floats("_conv_stem.weight")[1 * 27 + 2 * 9 + 1 * 3 + 2] == stemElement)
    }

    @Test func `the real checkpoint cut inside its pickles or storages is refused`() throws {
        let full = try [UInt8](Data(contentsOf: URL(fileURLWithPath: try #require(Self.effnetPath, "EfficientNet-Lite0 not installed: run scripts/setup.sh all"))))
        // Every 97th byte through the pickles (the first 47,176 bytes), then a few storage cuts.
        let cuts = Array(stride(from: 0, to: 47_200, by: 97)) + [47_177, 60_000, 1_000_000, full.count - 4, full.count - 1]
        for cut in cuts {
            #expect(throws: FormatError.self, "cut at \(cut)") { try TorchCheckpoint(data: Array(full[..<cut])) }
        }
    }
}
