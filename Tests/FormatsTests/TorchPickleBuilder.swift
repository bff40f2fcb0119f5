/// Writes protocol-2 pickles opcode by opcode, the way `torch.save` lays out a state dict, so
/// the tests can build legacy and zip checkpoints (and hostile variants) byte for byte.
struct PickleBuilder {
    var bytes: [UInt8] = [0x80, 0x02]  // PROTO 2

    mutating func op(_ code: UInt8) { bytes.append(code) }
    mutating func mark() { op(0x28) }

    mutating func string(_ s: String) {
        op(0x58)  // BINUNICODE
        append32(UInt32(s.utf8.count))
        bytes += Array(s.utf8)
    }

    mutating func int(_ v: Int) {
        if (0..<256).contains(v) { op(0x4B); bytes.append(UInt8(v)) }
        else if (0..<65_536).contains(v) { op(0x4D); bytes += [UInt8(v & 0xFF), UInt8(v >> 8)] }
        else { op(0x4A); append32(UInt32(truncatingIfNeeded: v)) }
    }

    mutating func global(_ module: String, _ name: String) {
        op(0x63)
        bytes += Array("\(module)\n\(name)\n".utf8)
    }

    /// `_rebuild_tensor_v2((storage pid), offset, shape, strides, False, OrderedDict())`.
    mutating func tensor(storageType: String, key: String, numel: Int, offset: Int, shape: [Int], strides: [Int]) {
        global("torch._utils", "_rebuild_tensor_v2")
        mark()
        mark(); string("storage"); global("torch", storageType); string(key); string("cpu"); int(numel); op(0x4E); op(0x74)
        op(0x51)  // BINPERSID
        int(offset)
        mark(); shape.forEach { int($0) }; op(0x74)
        mark(); strides.forEach { int($0) }; op(0x74)
        op(0x89)  // NEWFALSE
        global("collections", "OrderedDict"); op(0x29); op(0x52)
        op(0x74)
        op(0x52)  // REDUCE
    }

    mutating func stop() { op(0x2E) }

    mutating func append32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { bytes += $0 } }
}

/// A tiny state dict: "w" f32 (2, 3) from storage "0"; "b" f32 (3) at offset 1 of storage "1";
/// "n" i64 scalar from storage "2".
enum TinyCheckpoint {
    static let w: [Float] = [1, 2, 3, 4, 5, 6]
    static let bStorage: [Float] = [9, 0.5, -1.5, 2.25]

    static func statePickle(wStrides: [Int] = [3, 1], wGlobal: (String, String) = ("torch", "FloatStorage")) -> [UInt8] {
        var p = PickleBuilder()
        p.global("collections", "OrderedDict"); p.op(0x29); p.op(0x52)
        p.op(0x71); p.bytes.append(0)  // BINPUT 0
        p.mark()
        p.string("w"); p.tensor(storageType: wGlobal.1, key: "0", numel: 6, offset: 0, shape: [2, 3], strides: wStrides)
        p.string("b"); p.tensor(storageType: "FloatStorage", key: "1", numel: 4, offset: 1, shape: [3], strides: [1])
        p.string("n"); p.tensor(storageType: "LongStorage", key: "2", numel: 1, offset: 0, shape: [], strides: [])
        p.op(0x75)  // SETITEMS
        p.stop()
        return p.bytes
    }

    static func storageBytes(_ key: String) -> [UInt8] {
        switch key {
        case "0": w.flatMap { f in withUnsafeBytes(of: f.bitPattern.littleEndian) { Array($0) } }
        case "1": bStorage.flatMap { f in withUnsafeBytes(of: f.bitPattern.littleEndian) { Array($0) } }
        default: withUnsafeBytes(of: Int64(7).littleEndian) { Array($0) }
        }
    }

    /// The legacy file: magic, version, sys_info, the state dict, the key list, the storages.
    static func legacy(state: [UInt8] = statePickle()) -> [UInt8] {
        var out: [UInt8] = []
        var magic = PickleBuilder()
        magic.op(0x8A); magic.bytes.append(10); magic.bytes += [0x6C, 0xFC, 0x9C, 0x46, 0xF9, 0x20, 0x6A, 0xA8, 0x50, 0x19]
        magic.stop()
        var version = PickleBuilder(); version.int(1001); version.stop()
        var info = PickleBuilder()
        info.op(0x7D); info.mark(); info.string("protocol_version"); info.int(1001)
        info.string("little_endian"); info.op(0x88); info.op(0x75); info.stop()
        var keys = PickleBuilder()
        keys.op(0x5D); keys.mark(); ["0", "1", "2"].forEach { keys.string($0) }; keys.op(0x65); keys.stop()
        out += magic.bytes + version.bytes + info.bytes + state + keys.bytes
        for (key, count) in [("0", 6), ("1", 4), ("2", 1)] {
            withUnsafeBytes(of: Int64(count).littleEndian) { out += $0 }
            out += storageBytes(key)
        }
        return out
    }
}
