import Foundation
import Formats
import Tensor
import Testing
import TestSupport

@Suite struct GGUFRoundTripTests {
    static let scalars: [(String, GGUFValue)] = [
        ("t.u8", .uint8(200)), ("t.i8", .int8(-100)), ("t.u16", .uint16(60_000)), ("t.i16", .int16(-30_000)),
        ("t.u32", .uint32(4_000_000_000)), ("t.i32", .int32(-2_000_000_000)),
        ("t.u64", .uint64(UInt64.max)), ("t.i64", .int64(Int64.min)),
        ("t.f32", .float32(-0.15625)), ("t.f64", .float64(1e300)), ("t.true", .bool(true)), ("t.false", .bool(false)),
        ("t.string", .string("héllo ▁wörld 🙂")), ("t.empty", .string("")),
    ]

    static let arrays: [(String, GGUFArray)] = [
        ("a.u8", .uint8([0, 1, 255])), ("a.i8", .int8([-128, 0, 127])), ("a.u16", .uint16([1, 65535])),
        ("a.i16", .int16([-32768, 5])), ("a.u32", .uint32([7, UInt32.max])), ("a.i32", .int32([Int32.min, 3])),
        ("a.u64", .uint64([UInt64.max, 0])), ("a.i64", .int64([Int64.min, Int64.max])),
        ("a.f32", .float32([1.5, -2, .infinity])), ("a.f64", .float64([0.1, -1e-300])), ("a.bool", .bool([true, false, true])),
        ("a.string", .string(["", "a", "Ġthe", "<0x0A>", "日本"])), ("a.emptyStrings", .string([])),
        ("a.nested", .array([.int32([1, 2]), .string(["x"]), .array([.float32([3])]), .uint8([])])),
    ]

    @Test(arguments: [UInt32(2), 3], [Int?.none, 32, 64])
    func `every value type and tensor survives a write and read`(version: UInt32, alignment: Int?) throws {
        var w = GGUFWriter(version: version, alignment: alignment)
        for (key, value) in Self.scalars { w.add(key, value) }
        for (key, array) in Self.arrays { w.add(key, .array(array)) }
        let f32 = (0..<12).map { Float($0) * 0.5 - 1 }
        let q40 = (0..<36).map { UInt8(truncatingIfNeeded: $0 &* 37) }   // two Q4_0 blocks
        let f16 = (0..<6).map { UInt8($0) }                              // three halves
        w.addTensor(name: "a.f32", floats: f32, shape: [4, 3])
        w.addTensor(name: "b.q4_0", type: .q4_0, shape: [64], data: q40)
        w.addTensor(name: "c.f16", type: .f16, shape: [3, 1, 1, 1], data: f16)

        let dir = try TemporaryDirectory()
        let file = try GGUFFile.open(path: w.write(in: dir))

        #expect(file.version == version)
        #expect(file.alignment == (alignment ?? 32))
        #expect(file.metadataKeys == w.metadata.map(\.key))
        for (key, value) in w.metadata { #expect(file.metadata[key] == value, "\(key)") }
        #expect(file.tensorInfos.map(\.name) == ["a.f32", "b.q4_0", "c.f16"])
        #expect(file.dataOffset % file.alignment == 0)

        let a = try file.tensor("a.f32")
        #expect(a.type == .f32 && a.shape == [4, 3] && a.byteCount == 48 && a.owner === file.region)
        let floats = (0..<12).map { a.data.loadUnaligned(fromByteOffset: $0 * 4, as: Float.self) }
        #expect(floats == f32)
        let b = try file.tensor("b.q4_0")
        #expect(b.type == .q4_0 && b.shape == [64] && b.byteCount == 36)
        #expect(Array(UnsafeRawBufferPointer(start: b.data, count: b.byteCount)) == q40)
        let c = try file.tensor("c.f16")
        #expect(c.shape == [3, 1, 1, 1] && c.byteCount == 6)
        #expect(Array(UnsafeRawBufferPointer(start: c.data, count: 6)) == f16)
        for info in file.tensorInfos {
            #expect((info.offset - file.dataOffset) % file.alignment == 0, "\(info.name)")
            #expect(try file.tensor(info.name).data == file.region.base! + info.offset)
        }
    }

    @Test func `a file without tensors or metadata parses`() throws {
        let file = try GGUFTestFiles.parse(GGUFWriter().bytes()).get()
        #expect(file.tensorInfos.isEmpty && file.metadata.isEmpty && file.alignment == 32)
    }

    @Test func `tensors with zero elements or no dimensions are accepted`() throws {
        var w = GGUFWriter()
        w.addTensor(.init(name: "scalar", rawType: 0, dims: [], data: [0, 0, 128, 63]))
        w.addTensor(.init(name: "empty", rawType: 0, dims: [0, 5], data: []))
        let file = try GGUFTestFiles.parse(w.bytes()).get()
        #expect(file.tensorInfos.map(\.byteCount) == [4, 0])
        #expect(file.tensorInfos.map(\.shape) == [[], [0, 5]])
    }

    @Test func `asking for an absent tensor names it`() throws {
        let dir = try TemporaryDirectory()
        let file = try GGUFFile.open(path: GGUFTestFiles.small().write(in: dir))
        #expect(file.hasTensor("norm.weight") && !file.hasTensor("nope"))
        #expect(throws: FormatError.missingTensor(name: "nope")) { try file.tensor("nope") }
    }

    @Test func `opening a missing path or a directory is an io error`() throws {
        let dir = try TemporaryDirectory()
        let missing = dir.file("absent.gguf")
        #expect(throws: FormatError.io(.cannotOpen(path: missing, errno: ENOENT))) { try GGUFFile.open(path: missing) }
        #expect(throws: FormatError.io(.notARegularFile(path: dir.path))) { try GGUFFile.open(path: dir.path) }
    }

    @Test func `an empty file is reported as truncated at the magic`() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("empty.gguf")
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        #expect(throws: FormatError.truncated(field: "magic", offset: 0, needed: 4, fileSize: 0)) {
            try GGUFFile.open(path: path)
        }
    }
}
