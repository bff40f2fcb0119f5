/// Writes small FlatBuffers for tests and fuzz seeds, front to back: a table's vtable comes just
/// before it and every object a field points to comes after the field (offsets are unsigned and
/// point forward, as the format requires). Not a general builder: no sharing, no deduplication.
package struct FlatBufferWriter {
    /// A value a table field or vector holds.
    package indirect enum Value {
        case int8(Int8), uint8(UInt8), int16(Int16), uint16(UInt16), int32(Int32), uint32(UInt32), uint64(UInt64), float(Float)
        case table([Value?])
        case tables([Value])
        case bytes([UInt8])
        case int32s([Int32])
        case floats([Float])
        case string(String)

        /// Inline size of a scalar; 4 (a u32 offset) for everything else.
        var inlineSize: Int {
            switch self {
            case .int8, .uint8: 1
            case .int16, .uint16: 2
            case .int32, .uint32, .float: 4
            case .uint64: 8
            default: 4
            }
        }
    }

    package private(set) var bytes: [UInt8] = []

    /// A buffer whose root is `root`, with a 4-byte `identifier` after the root offset.
    package static func buffer(root: Value, identifier: String) -> [UInt8] {
        var writer = FlatBufferWriter()
        writer.bytes = [0, 0, 0, 0] + Array(identifier.utf8.prefix(4))
        writer.pad(to: 4)
        writer.patch(at: 0, target: writer.write(root))
        return writer.bytes
    }

    mutating func pad(to alignment: Int) {
        while bytes.count % alignment != 0 { bytes.append(0) }
    }

    mutating func append<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
    }

    /// Sets the u32 at `at` to point at `target`.
    mutating func patch(at: Int, target: Int) {
        let value = UInt32(target - at).littleEndian
        withUnsafeBytes(of: value) { for (i, b) in $0.enumerated() { bytes[at + i] = b } }
    }

    /// Writes `value` (a table, vector or string) and returns its position.
    @discardableResult
    mutating func write(_ value: Value) -> Int {
        switch value {
        case .table(let fields): return writeTable(fields)
        case .tables(let items):
            pad(to: 4)
            let start = bytes.count
            append(UInt32(items.count))
            let slots = bytes.count
            for _ in items { append(UInt32(0)) }
            for (i, item) in items.enumerated() { patch(at: slots + 4 * i, target: write(item)) }
            return start
        case .bytes(let data):
            pad(to: 4)
            let start = bytes.count
            append(UInt32(data.count))
            bytes += data
            return start
        case .string(let text):
            pad(to: 4)
            let start = bytes.count
            append(UInt32(text.utf8.count))
            bytes += Array(text.utf8) + [0]
            return start
        case .int32s(let values):
            pad(to: 4)
            let start = bytes.count
            append(UInt32(values.count))
            for v in values { append(v) }
            return start
        case .floats(let values):
            pad(to: 4)
            let start = bytes.count
            append(UInt32(values.count))
            for v in values { append(v.bitPattern) }
            return start
        default:
            preconditionFailure("a scalar is written inline, not as an object")
        }
    }

    private mutating func writeTable(_ fields: [Value?]) -> Int {
        // Inline layout: soffset at 0, then each present field at its natural alignment.
        var offsets: [Int] = []
        var size = 4
        for field in fields {
            guard let field else { offsets.append(0); continue }
            let s = field.inlineSize
            size = (size + s - 1) / s * s
            offsets.append(size)
            size += s
        }
        pad(to: 8)
        let vtable = bytes.count
        append(UInt16(4 + 2 * fields.count))
        append(UInt16(size))
        for o in offsets { append(UInt16(o)) }
        // The table starts 8-aligned (room for u64 fields), right after the vtable and padding.
        pad(to: 8)
        let table = bytes.count
        append(Int32(table - vtable))
        bytes += [UInt8](repeating: 0, count: size - 4)
        var children: [(slot: Int, value: Value)] = []
        for (field, offset) in zip(fields, offsets) {
            guard let field else { continue }
            let at = table + offset
            func put<T: FixedWidthInteger>(_ v: T) {
                withUnsafeBytes(of: v.littleEndian) { for (i, b) in $0.enumerated() { bytes[at + i] = b } }
            }
            switch field {
            case .int8(let v): put(v)
            case .uint8(let v): put(v)
            case .int16(let v): put(v)
            case .uint16(let v): put(v)
            case .int32(let v): put(v)
            case .uint32(let v): put(v)
            case .uint64(let v): put(v)
            case .float(let v): put(v.bitPattern)
            default: children.append((at, field))
            }
        }
        for child in children { patch(at: child.slot, target: write(child.value)) }
        return table
    }
}
