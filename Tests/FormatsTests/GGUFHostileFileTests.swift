import Formats
import Tensor
import Testing
import TestSupport

/// Each hostile field gives its own typed error naming the field and offset.
@Suite struct GGUFHostileFileTests {
    typealias Files = GGUFTestFiles

    @Test func `a tensor count of 2^60 is absurd`() {
        var e = GGUFEncoder()
        e.header(tensorCount: 1 << 60, kvCount: 0)
        #expect(Files.error(e.bytes) == .absurdCount(field: "tensor count", count: 1 << 60, offset: 8))
    }

    @Test func `a metadata count larger than the file is absurd`() {
        var e = GGUFEncoder()
        e.header(tensorCount: 0, kvCount: .max)
        #expect(Files.error(e.bytes) == .absurdCount(field: "metadata count", count: .max, offset: 16))
    }

    @Test func `a key length of 2^63 is absurd`() {
        var e = GGUFEncoder()
        e.header(tensorCount: 0, kvCount: 1)
        e.u64(1 << 63)
        e.bytes += Array(repeating: 0, count: 16)   // enough for the kv count to be plausible
        #expect(Files.error(e.bytes) == .absurdCount(field: "metadata[0] key", count: 1 << 63, offset: 24))
    }

    @Test func `a string value length of 2^63 is absurd`() {
        var e = GGUFEncoder()
        e.header(tensorCount: 0, kvCount: 1)
        e.string("k")
        e.u32(GGUFValueType.string.rawValue)
        let at = e.bytes.count
        e.u64(1 << 63)
        #expect(Files.error(e.bytes) == .absurdCount(field: "metadata 'k'", count: 1 << 63, offset: at))
    }

    @Test(arguments: [GGUFValueType.float32, .string, .uint64, .array])
    func `an array count that cannot fit its minimum element size is absurd`(type: GGUFValueType) {
        // 64 bytes follow the count: 8 u64s fit, 9 do not; 9 strings of at least 8 bytes cannot either.
        var e = GGUFEncoder()
        e.header(tensorCount: 0, kvCount: 1)
        e.string("k")
        e.u32(GGUFValueType.array.rawValue)
        e.u32(type.rawValue)
        let at = e.bytes.count
        let count: UInt64 = type == .float32 ? 17 : type == .array ? 6 : 9
        e.u64(count)
        e.bytes += Array(repeating: 0, count: 64)
        #expect(Files.error(e.bytes) == .absurdCount(field: "metadata 'k' count", count: count, offset: at))
    }

    @Test func `an array whose elements exactly fill the file parses`() throws {
        var e = GGUFEncoder()
        e.header(tensorCount: 0, kvCount: 1)
        e.string("k")
        e.u32(GGUFValueType.array.rawValue)
        e.u32(GGUFValueType.uint64.rawValue)
        e.u64(8)
        e.bytes += Array(repeating: 0, count: 64)
        #expect(try Files.parse(e.bytes).get().metadata["k"] == .array(.uint64(Array(repeating: 0, count: 8))))
    }

    @Test(arguments: [[UInt64(1) << 32, 1 << 32], [1 << 63], [1 << 62, 2, 2], [4, 1 << 62, 4]])
    func `dimensions whose product overflows are invalid`(dims: [UInt64]) {
        #expect(Files.error(Files.oneTensor(dims: dims)) == .invalidDimensions(name: "t", dims: dims))
    }

    @Test func `a byte size that overflows is invalid`() {
        let bytes = Files.oneTensor(rawType: GGMLType.f64.rawValue, dims: [1 << 61, 1])
        #expect(Files.error(bytes) == .invalidDimensions(name: "t", dims: [1 << 61, 1]))
    }

    @Test func `nine dimensions are refused with the offset of n_dims`() {
        var e = GGUFEncoder()
        e.header(tensorCount: 1, kvCount: 0)
        e.string("big")
        let at = e.bytes.count
        e.u32(9)
        e.bytes += Array(repeating: 1, count: 9 * 8 + 12)
        #expect(Files.error(e.bytes) == .tooManyDimensions(name: "big", count: 9, offset: at))
    }

    @Test func `tensor data running past the end of the file is out of bounds`() throws {
        let bytes = Files.oneTensor(dims: [4], data: Array(repeating: 0, count: 8))
        let dataOffset = 64   // 24 header + 33 info, aligned to 32
        #expect(bytes.count == dataOffset + 8)
        #expect(Files.error(bytes) == .tensorOutOfBounds(name: "t", offset: dataOffset, size: 16, fileSize: bytes.count))
    }

    @Test func `a huge but representable tensor is out of bounds rather than allocated`() {
        let bytes = Files.oneTensor(dims: [1 << 40])
        #expect(Files.error(bytes) == .tensorOutOfBounds(name: "t", offset: 64, size: 1 << 42, fileSize: bytes.count))
    }

    @Test func `tensor offsets far past the end are out of bounds`() {
        let near = Files.oneTensor(offset: 1 << 20)
        #expect(Files.error(near) == .tensorOutOfBounds(name: "t", offset: 64 + 1 << 20, size: 16, fileSize: near.count))
        let far = Files.oneTensor(offset: 1 << 63)
        #expect(Files.error(far) == .tensorOutOfBounds(name: "t", offset: .max, size: 16, fileSize: far.count))
    }

    @Test func `a misaligned tensor offset is refused`() {
        #expect(Files.error(Files.oneTensor(offset: 8)) == .misalignedTensor(name: "t", offset: 8, alignment: 32))
    }

    @Test func `an unknown tensor type id names the tensor`() {
        let bytes = Files.oneTensor(name: "blk.0.weird", rawType: 99)
        #expect(Files.error(bytes) == .unsupportedTensorType(name: "blk.0.weird", rawType: 99))
    }

    @Test func `a row that is not a whole number of blocks is refused`() {
        let bytes = Files.oneTensor(rawType: GGMLType.q4_0.rawValue, dims: [33, 2])
        #expect(Files.error(bytes) == .partialBlock(name: "t", rowLength: 33, blockSize: 32))
    }

    @Test func `duplicate tensor names and keys are refused`() {
        var tensors = GGUFWriter()
        tensors.addTensor(name: "w", floats: [1], shape: [1])
        tensors.addTensor(name: "w", floats: [2], shape: [1])
        #expect(Files.error(tensors.bytes()) == .duplicateTensor(name: "w"))
        var keys = GGUFWriter()
        keys.add("k", .uint8(1))
        keys.add("k", .string("again"))
        #expect(Files.error(keys.bytes()) == .duplicateKey(key: "k"))
    }

    @Test(arguments: [UInt32(0), 1, 4, 0x0300_0000])
    func `versions other than 2 and 3 are refused`(version: UInt32) {
        #expect(Files.error(GGUFWriter(version: version).bytes()) == .unsupportedVersion(version))
    }

    @Test func `a wrong magic is reported with its bytes`() {
        var bytes = Files.small().bytes()
        bytes.replaceSubrange(0..<4, with: Array("GGJT".utf8))
        #expect(Files.error(bytes) == .badMagic(found: Array("GGJT".utf8)))
    }

    @Test func `an unknown value type names the key and offset`() {
        var e = GGUFEncoder()
        e.header(tensorCount: 0, kvCount: 1)
        e.string("k")
        let at = e.bytes.count
        e.u32(13)
        e.u64(0)
        #expect(Files.error(e.bytes) == .invalidValueType(raw: 13, key: "k", offset: at))
    }

    @Test func `an unknown array element type names the key and offset`() {
        var e = GGUFEncoder()
        e.header(tensorCount: 0, kvCount: 1)
        e.string("k")
        e.u32(GGUFValueType.array.rawValue)
        let at = e.bytes.count
        e.u32(42)
        e.u64(0)
        #expect(Files.error(e.bytes) == .invalidValueType(raw: 42, key: "k", offset: at))
    }

    @Test func `a bool byte other than 0 or 1 is refused`() {
        var e = GGUFEncoder()
        e.header(tensorCount: 0, kvCount: 1)
        e.string("flag")
        e.u32(GGUFValueType.bool.rawValue)
        let at = e.bytes.count
        e.u8(2)
        #expect(Files.error(e.bytes) == .invalidBool(field: "metadata 'flag'", offset: at, raw: 2))
    }

    @Test func `arrays nest up to four levels and no deeper`() throws {
        func nested(_ depth: Int) -> GGUFArray { depth == 1 ? .int8([1]) : .array([nested(depth - 1)]) }
        var ok = GGUFWriter()
        ok.add("k", .array(nested(4)))
        #expect(try Files.parse(ok.bytes()).get().metadata["k"] == .array(nested(4)))
        var deep = GGUFWriter()
        deep.add("k", .array(nested(5)))
        // Offset of the fourth level's element type: header, key, value type, then 3 × (type + count).
        let at = 24 + 9 + 4 + 3 * 12
        #expect(Files.error(deep.bytes()) == .nestingTooDeep(key: "k", offset: at))
    }

    @Test(arguments: [UInt32(0), 3, 48, 1 << 31])
    func `an alignment that is not a usable power of two is refused`(value: UInt32) {
        var w = GGUFWriter()
        w.add("general.alignment", .uint32(value))
        #expect(Files.error(w.bytes()) == .invalidAlignment(value: UInt64(value)))
    }

    @Test func `an alignment stored as a string is the wrong type`() {
        var w = GGUFWriter()
        w.add("general.alignment", .string("32"))
        #expect(Files.error(w.bytes()) == .wrongMetadataType(key: "general.alignment", expected: "u32", found: "string"))
    }
}
