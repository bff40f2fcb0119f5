import Formats

/// Appends GGUF primitives (little-endian) to a byte array. Tests use it directly to craft
/// hostile files field by field; `GGUFWriter` uses it for well-formed ones.
package struct GGUFEncoder {
    package var bytes: [UInt8] = []

    package init() {}

    package mutating func u8(_ v: UInt8) { bytes.append(v) }
    package mutating func u16(_ v: UInt16) { append(v) }
    package mutating func u32(_ v: UInt32) { append(v) }
    package mutating func u64(_ v: UInt64) { append(v) }

    /// A string: u64 byte length, then the UTF-8 bytes.
    package mutating func string(_ s: String) {
        u64(UInt64(s.utf8.count))
        bytes.append(contentsOf: s.utf8)
    }

    /// Magic, version and the two counts.
    package mutating func header(version: UInt32 = 3, tensorCount: UInt64, kvCount: UInt64) {
        bytes.append(contentsOf: Array("GGUF".utf8))
        u32(version)
        u64(tensorCount)
        u64(kvCount)
    }

    /// A whole key/value entry: key, u32 type, value.
    package mutating func keyValue(_ key: String, _ value: GGUFValue) {
        string(key)
        u32(value.type.rawValue)
        self.value(value)
    }

    /// A value without its type id.
    package mutating func value(_ value: GGUFValue) {
        switch value {
        case .uint8(let v): u8(v)
        case .int8(let v): append(v)
        case .uint16(let v): append(v)
        case .int16(let v): append(v)
        case .uint32(let v): append(v)
        case .int32(let v): append(v)
        case .uint64(let v): append(v)
        case .int64(let v): append(v)
        case .float32(let v): append(v.bitPattern)
        case .float64(let v): append(v.bitPattern)
        case .bool(let v): u8(v ? 1 : 0)
        case .string(let v): string(v)
        case .array(let v): array(v)
        }
    }

    /// An array body: u32 element type, u64 count, elements.
    package mutating func array(_ array: GGUFArray) {
        u32(array.elementType.rawValue)
        u64(UInt64(array.count))
        switch array {
        case .uint8(let a): a.forEach { u8($0) }
        case .int8(let a): a.forEach { append($0) }
        case .uint16(let a): a.forEach { append($0) }
        case .int16(let a): a.forEach { append($0) }
        case .uint32(let a): a.forEach { append($0) }
        case .int32(let a): a.forEach { append($0) }
        case .uint64(let a): a.forEach { append($0) }
        case .int64(let a): a.forEach { append($0) }
        case .float32(let a): a.forEach { append($0.bitPattern) }
        case .float64(let a): a.forEach { append($0.bitPattern) }
        case .bool(let a): a.forEach { u8($0 ? 1 : 0) }
        case .string(let a): a.forEach { string($0) }
        case .array(let a): a.forEach { self.array($0) }
        }
    }

    /// A tensor info: name, u32 n_dims, u64 dims, u32 type, u64 data-section offset.
    package mutating func tensorInfo(name: String, dims: [UInt64], rawType: UInt32, offset: UInt64) {
        string(name)
        u32(UInt32(dims.count))
        dims.forEach { u64($0) }
        u32(rawType)
        u64(offset)
    }

    /// Zero bytes up to the next multiple of `alignment`.
    package mutating func pad(to alignment: Int) {
        while bytes.count % alignment != 0 { bytes.append(0) }
    }

    private mutating func append<T: FixedWidthInteger>(_ v: T) {
        withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) }
    }
}
