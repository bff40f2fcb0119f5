/// GGUF metadata value type ids, as stored in the file (u32).
package enum GGUFValueType: UInt32, Sendable, CaseIterable, CustomStringConvertible {
    case uint8 = 0, int8 = 1, uint16 = 2, int16 = 3, uint32 = 4, int32 = 5, float32 = 6, bool = 7
    case string = 8, array = 9, uint64 = 10, int64 = 11, float64 = 12

    /// Smallest encoding of one value of this type, used to bound counts against the file size.
    var minimumSize: Int {
        switch self {
        case .uint8, .int8, .bool: 1
        case .uint16, .int16: 2
        case .uint32, .int32, .float32: 4
        case .uint64, .int64, .float64, .string: 8   // a string is at least its u64 length
        case .array: 4 + 8                            // element type + count
        }
    }

    package var description: String {
        switch self {
        case .uint8: "u8"
        case .int8: "i8"
        case .uint16: "u16"
        case .int16: "i16"
        case .uint32: "u32"
        case .int32: "i32"
        case .float32: "f32"
        case .bool: "bool"
        case .string: "string"
        case .array: "array"
        case .uint64: "u64"
        case .int64: "i64"
        case .float64: "f64"
        }
    }
}

/// One GGUF metadata value.
package enum GGUFValue: Sendable, Equatable {
    case uint8(UInt8), int8(Int8), uint16(UInt16), int16(Int16)
    case uint32(UInt32), int32(Int32), uint64(UInt64), int64(Int64)
    case float32(Float), float64(Double), bool(Bool)
    case string(String)
    case array(GGUFArray)

    /// The value's GGUF type.
    package var type: GGUFValueType {
        switch self {
        case .uint8: .uint8
        case .int8: .int8
        case .uint16: .uint16
        case .int16: .int16
        case .uint32: .uint32
        case .int32: .int32
        case .uint64: .uint64
        case .int64: .int64
        case .float32: .float32
        case .float64: .float64
        case .bool: .bool
        case .string: .string
        case .array: .array
        }
    }

    /// Type name for error messages, e.g. `array<string>`.
    package var typeName: String {
        if case .array(let array) = self { return "array<\(array.elementType)>" }
        return type.description
    }
}

/// A GGUF metadata array, stored typed so a 262,144-entry vocabulary is one contiguous Swift
/// array rather than 262,144 boxed enum values.
package enum GGUFArray: Sendable, Equatable {
    case uint8([UInt8]), int8([Int8]), uint16([UInt16]), int16([Int16])
    case uint32([UInt32]), int32([Int32]), uint64([UInt64]), int64([Int64])
    case float32([Float]), float64([Double]), bool([Bool])
    case string([String])
    /// Arrays of arrays; GGUF allows nesting, each inner array with its own element type.
    case array([GGUFArray])

    /// The element type.
    package var elementType: GGUFValueType {
        switch self {
        case .uint8: .uint8
        case .int8: .int8
        case .uint16: .uint16
        case .int16: .int16
        case .uint32: .uint32
        case .int32: .int32
        case .uint64: .uint64
        case .int64: .int64
        case .float32: .float32
        case .float64: .float64
        case .bool: .bool
        case .string: .string
        case .array: .array
        }
    }

    /// Number of elements.
    package var count: Int {
        switch self {
        case .uint8(let a): a.count
        case .int8(let a): a.count
        case .uint16(let a): a.count
        case .int16(let a): a.count
        case .uint32(let a): a.count
        case .int32(let a): a.count
        case .uint64(let a): a.count
        case .int64(let a): a.count
        case .float32(let a): a.count
        case .float64(let a): a.count
        case .bool(let a): a.count
        case .string(let a): a.count
        case .array(let a): a.count
        }
    }
}
