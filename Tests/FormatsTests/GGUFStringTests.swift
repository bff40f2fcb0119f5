import Formats
import Testing
import TestSupport

/// Strings are decoded strictly: malformed UTF-8 is an error naming the field and offset.
@Suite struct GGUFStringTests {
    /// A file whose one key holds a string array with `bytes` as element 1.
    static func file(element bytes: [UInt8]) -> (file: [UInt8], offset: Int) {
        var e = GGUFEncoder()
        e.header(tensorCount: 0, kvCount: 1)
        e.string("tokens")
        e.u32(GGUFValueType.array.rawValue)
        e.u32(GGUFValueType.string.rawValue)
        e.u64(3)
        e.string("a")
        e.u64(UInt64(bytes.count))
        let at = e.bytes.count
        e.bytes += bytes
        e.string("z")
        return (e.bytes, at)
    }

    static let invalid: [[UInt8]] = [
        [0x80], [0xC3], [0xC3, 0x28], [0xC0, 0xAF], [0xC1, 0xBF], [0xE0, 0x80, 0xAF], [0xED, 0xA0, 0x80],
        [0xF0, 0x80, 0x80, 0xAF], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xFF], [0x61, 0xE2, 0x82],
        [0xE2, 0x28, 0xA1], [0xF0, 0x9F, 0x98],
    ]

    @Test(arguments: invalid)
    func `malformed UTF-8 in a vocabulary entry names the entry and its offset`(bytes: [UInt8]) {
        let (file, at) = Self.file(element: bytes)
        #expect(GGUFTestFiles.error(file) == .invalidUTF8(field: "metadata 'tokens'[1]", offset: at))
    }

    static let valid: [[UInt8]] = [
        [], [0x00], [0x7F], [0xC2, 0x80], [0xDF, 0xBF], [0xE0, 0xA0, 0x80], [0xED, 0x9F, 0xBF], [0xEE, 0x80, 0x80],
        [0xEF, 0xBF, 0xBF], [0xF0, 0x90, 0x80, 0x80], [0xF0, 0x9F, 0x99, 0x82], [0xF4, 0x8F, 0xBF, 0xBF],
    ]

    @Test(arguments: valid)
    func `edge-of-range UTF-8 decodes to the same bytes`(bytes: [UInt8]) throws {
        let header = try GGUFTestFiles.parse(Self.file(element: bytes).file).get()
        guard case .array(.string(let tokens)) = header.metadata["tokens"] else {
            Issue.record("tokens missing")
            return
        }
        #expect(tokens.count == 3 && Array(tokens[1].utf8) == bytes)
    }

    @Test func `a malformed key is reported as the key`() {
        var e = GGUFEncoder()
        e.header(tensorCount: 0, kvCount: 1)
        e.u64(2)
        e.bytes += [0xC3, 0x28]
        e.u32(GGUFValueType.uint8.rawValue)
        e.u8(0)
        #expect(GGUFTestFiles.error(e.bytes) == .invalidUTF8(field: "metadata[0] key", offset: 32))
    }
}
