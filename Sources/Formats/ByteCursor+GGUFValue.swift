extension ByteCursor {
    /// Reads a metadata value: u32 type id, then the value.
    mutating func readValue(key: String) throws(FormatError) -> GGUFValue {
        let typeOffset = offset
        let raw = try read(UInt32.self, "metadata '\(key)' type")
        guard let type = GGUFValueType(rawValue: raw) else {
            throw .invalidValueType(raw: raw, key: key, offset: typeOffset)
        }
        return try readValue(type, key: key)
    }

    private mutating func readValue(_ type: GGUFValueType, key: String) throws(FormatError) -> GGUFValue {
        switch type {
        case .uint8: return .uint8(try read(UInt8.self, "metadata '\(key)'"))
        case .int8: return .int8(try read(Int8.self, "metadata '\(key)'"))
        case .uint16: return .uint16(try read(UInt16.self, "metadata '\(key)'"))
        case .int16: return .int16(try read(Int16.self, "metadata '\(key)'"))
        case .uint32: return .uint32(try read(UInt32.self, "metadata '\(key)'"))
        case .int32: return .int32(try read(Int32.self, "metadata '\(key)'"))
        case .uint64: return .uint64(try read(UInt64.self, "metadata '\(key)'"))
        case .int64: return .int64(try read(Int64.self, "metadata '\(key)'"))
        case .float32: return .float32(Float(bitPattern: try read(UInt32.self, "metadata '\(key)'")))
        case .float64: return .float64(Double(bitPattern: try read(UInt64.self, "metadata '\(key)'")))
        case .bool:
            let at = offset
            return .bool(try Self.bool(try read(UInt8.self, "metadata '\(key)'"), field: "metadata '\(key)'", offset: at))
        case .string: return .string(try readString("metadata '\(key)'"))
        case .array: return .array(try readArray(key: key, depth: 1))
        }
    }

    /// Reads an array body: u32 element type, u64 count, elements.
    private mutating func readArray(key: String, depth: Int) throws(FormatError) -> GGUFArray {
        let typeOffset = offset
        let raw = try read(UInt32.self, "metadata '\(key)' element type")
        guard let type = GGUFValueType(rawValue: raw) else {
            throw .invalidValueType(raw: raw, key: key, offset: typeOffset)
        }
        if type == .array, depth >= GGUFHeader.maxArrayNesting {
            throw .nestingTooDeep(key: key, offset: typeOffset)
        }
        let count = try readCount(minItemSize: type.minimumSize, "metadata '\(key)' count")
        switch type {
        case .uint8: return .uint8(readArray(UInt8.self, count: count))
        case .int8: return .int8(readArray(Int8.self, count: count))
        case .uint16: return .uint16(readArray(UInt16.self, count: count))
        case .int16: return .int16(readArray(Int16.self, count: count))
        case .uint32: return .uint32(readArray(UInt32.self, count: count))
        case .int32: return .int32(readArray(Int32.self, count: count))
        case .uint64: return .uint64(readArray(UInt64.self, count: count))
        case .int64: return .int64(readArray(Int64.self, count: count))
        case .float32: return .float32(readArray(UInt32.self, count: count).map(Float.init(bitPattern:)))
        case .float64: return .float64(readArray(UInt64.self, count: count).map(Double.init(bitPattern:)))
        case .bool:
            let start = offset
            let raw = readArray(UInt8.self, count: count)
            var values: [Bool] = []
            values.reserveCapacity(Self.reservation(count))
            for (i, byte) in raw.enumerated() {
                values.append(try Self.bool(byte, field: "metadata '\(key)'[\(i)]", offset: start + i))
            }
            return .bool(values)
        case .string:
            var values: [String] = []
            values.reserveCapacity(Self.reservation(count))
            for i in 0..<count { values.append(try readString("metadata '\(key)'[\(i)]")) }
            return .string(values)
        case .array:
            var values: [GGUFArray] = []
            values.reserveCapacity(Self.reservation(count))
            for _ in 0..<count { values.append(try readArray(key: key, depth: depth + 1)) }
            return .array(values)
        }
    }

    private static func bool(_ byte: UInt8, field: @autoclosure () -> String, offset: Int) throws(FormatError) -> Bool {
        switch byte {
        case 0: return false
        case 1: return true
        default: throw .invalidBool(field: field(), offset: offset, raw: byte)
        }
    }
}
