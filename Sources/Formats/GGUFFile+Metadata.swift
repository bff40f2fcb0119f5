/// Typed metadata access. Integer accessors accept any integer width whose value fits, since
/// converters disagree on widths (u32 vs i32 vs u64) for the same key.
extension GGUFFile {
    /// A string value.
    package func string(_ key: String) -> String? {
        if case .string(let value) = metadata[key] { return value }
        return nil
    }

    /// An integer value of any width, nil if absent, not an integer, or out of `Int` range.
    package func int(_ key: String) -> Int? {
        metadata[key].flatMap(Self.integer)
    }

    /// A float value (f32 or f64; integers are converted).
    package func float(_ key: String) -> Float? {
        switch metadata[key] {
        case .float32(let v): v
        case .float64(let v): Float(v)
        case let value?: Self.integer(value).map(Float.init)
        case nil: nil
        }
    }

    /// A bool value.
    package func bool(_ key: String) -> Bool? {
        if case .bool(let value) = metadata[key] { return value }
        return nil
    }

    /// A string array.
    package func stringArray(_ key: String) -> [String]? {
        if case .array(.string(let values)) = metadata[key] { return values }
        return nil
    }

    /// A float array (f32 or f64 elements).
    package func floatArray(_ key: String) -> [Float]? {
        switch metadata[key] {
        case .array(.float32(let values)): values
        case .array(.float64(let values)): values.map { Float($0) }
        default: nil
        }
    }

    /// An integer array of any width, nil if any element is out of `Int` range.
    package func intArray(_ key: String) -> [Int]? {
        guard case .array(let array) = metadata[key] else { return nil }
        switch array {
        case .uint8(let v): return v.map { Int($0) }
        case .int8(let v): return v.map { Int($0) }
        case .uint16(let v): return v.map { Int($0) }
        case .int16(let v): return v.map { Int($0) }
        case .uint32(let v): return v.map { Int($0) }
        case .int32(let v): return v.map { Int($0) }
        case .int64(let v): return v.map { Int($0) }
        case .uint64(let v):
            guard v.allSatisfy({ $0 <= UInt64(Int.max) }) else { return nil }
            return v.map { Int($0) }
        default: return nil
        }
    }

    /// A required string; `.missingMetadata` or `.wrongMetadataType` otherwise.
    package func requireString(_ key: String) throws(FormatError) -> String {
        try require(key, expected: "string", string(key))
    }

    /// A required integer of any width.
    package func requireInt(_ key: String) throws(FormatError) -> Int {
        try require(key, expected: "integer", int(key))
    }

    /// A required float.
    package func requireFloat(_ key: String) throws(FormatError) -> Float {
        try require(key, expected: "float", float(key))
    }

    /// A required bool.
    package func requireBool(_ key: String) throws(FormatError) -> Bool {
        try require(key, expected: "bool", bool(key))
    }

    /// A required string array.
    package func requireStringArray(_ key: String) throws(FormatError) -> [String] {
        try require(key, expected: "array<string>", stringArray(key))
    }

    private func require<T>(_ key: String, expected: String, _ value: T?) throws(FormatError) -> T {
        if let value { return value }
        guard let present = metadata[key] else { throw .missingMetadata(key: key) }
        throw .wrongMetadataType(key: key, expected: expected, found: present.typeName)
    }

    private static func integer(_ value: GGUFValue) -> Int? {
        switch value {
        case .uint8(let v): Int(v)
        case .int8(let v): Int(v)
        case .uint16(let v): Int(v)
        case .int16(let v): Int(v)
        case .uint32(let v): Int(v)
        case .int32(let v): Int(v)
        case .int64(let v): Int(v)
        case .uint64(let v): Int(exactly: v)
        default: nil
        }
    }
}
