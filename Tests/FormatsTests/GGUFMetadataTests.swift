import Foundation
import Formats
import Testing
import TestSupport

@Suite struct GGUFMetadataTests {
    static func file(_ entries: [(String, GGUFValue)]) throws -> (GGUFFile, TemporaryDirectory) {
        var w = GGUFWriter()
        for (key, value) in entries { w.add(key, value) }
        let dir = try TemporaryDirectory()
        return (try GGUFFile.open(path: w.write(in: dir)), dir)
    }

    @Test func `integers of every width read as Int`() throws {
        let (f, dir) = try Self.file([
            ("u8", .uint8(255)), ("i8", .int8(-5)), ("u16", .uint16(65535)), ("i16", .int16(-300)),
            ("u32", .uint32(4_000_000_000)), ("i32", .int32(-7)), ("u64", .uint64(1 << 40)), ("i64", .int64(-(1 << 40))),
            ("huge", .uint64(.max)), ("s", .string("3")), ("f", .float32(3)),
        ])
        defer { dir.cleanup() }
        #expect(f.int("u8") == 255 && f.int("i8") == -5 && f.int("u16") == 65535 && f.int("i16") == -300)
        #expect(f.int("u32") == 4_000_000_000 && f.int("i32") == -7 && f.int("u64") == 1 << 40 && f.int("i64") == -(1 << 40))
        #expect(f.int("huge") == nil && f.int("s") == nil && f.int("f") == nil && f.int("absent") == nil)
    }

    @Test func `floats, bools and strings read by type`() throws {
        let (f, dir) = try Self.file([
            ("f32", .float32(1e-6)), ("f64", .float64(0.25)), ("n", .uint32(10_000)), ("b", .bool(true)),
            ("s", .string("llama")), ("general.architecture", .string("gemma3")),
        ])
        defer { dir.cleanup() }
        #expect(f.float("f32") == 1e-6 && f.float("f64") == 0.25 && f.float("n") == 10_000 && f.float("s") == nil)
        #expect(f.bool("b") == true && f.bool("n") == nil)
        #expect(f.string("s") == "llama" && f.string("b") == nil && f.architecture == "gemma3")
    }

    @Test func `arrays read as Swift arrays with integer widths widened`() throws {
        let (f, dir) = try Self.file([
            ("tokens", .array(.string(["a", "b"]))), ("scores", .array(.float32([0.5, -1]))),
            ("scores64", .array(.float64([2]))), ("types", .array(.int32([1, 3, 6]))),
            ("ids", .array(.uint32([7]))), ("big", .array(.uint64([.max]))), ("bools", .array(.bool([true]))),
        ])
        defer { dir.cleanup() }
        #expect(f.stringArray("tokens") == ["a", "b"] && f.stringArray("scores") == nil)
        #expect(f.floatArray("scores") == [0.5, -1] && f.floatArray("scores64") == [2] && f.floatArray("types") == nil)
        #expect(f.intArray("types") == [1, 3, 6] && f.intArray("ids") == [7])
        #expect(f.intArray("big") == nil && f.intArray("bools") == nil && f.intArray("tokens") == nil)
    }

    @Test func `required values name what is missing or mistyped`() throws {
        let (f, dir) = try Self.file([("n", .uint32(3)), ("s", .string("x")), ("a", .array(.int8([1])))])
        defer { dir.cleanup() }
        #expect(try f.requireInt("n") == 3 && f.requireString("s") == "x" && f.requireFloat("n") == 3)
        #expect(throws: FormatError.missingMetadata(key: "llama.block_count")) { try f.requireInt("llama.block_count") }
        #expect(throws: FormatError.wrongMetadataType(key: "s", expected: "integer", found: "string")) { try f.requireInt("s") }
        #expect(throws: FormatError.wrongMetadataType(key: "n", expected: "string", found: "u32")) { try f.requireString("n") }
        #expect(throws: FormatError.wrongMetadataType(key: "a", expected: "float", found: "array<i8>")) { try f.requireFloat("a") }
        #expect(throws: FormatError.wrongMetadataType(key: "a", expected: "array<string>", found: "array<i8>")) {
            try f.requireStringArray("a")
        }
        #expect(throws: FormatError.missingMetadata(key: "b")) { try f.requireBool("b") }
    }
}
