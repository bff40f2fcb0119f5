import Tensor

/// A value on the restricted pickle machine's stack. Lists and dicts are reference boxes because
/// pickle mutates a container after memoizing it (EMPTY_DICT, BINPUT, then SETITEMS), and a later
/// BINGET must see the filled container.
indirect enum PickleValue {
    case none
    case bool(Bool)
    case int(Int)
    /// An integer wider than 64 bits (LONG1/LONG4), as its little-endian two's-complement bytes.
    case bigInt([UInt8])
    case float(Double)
    case string(String)
    case tuple([PickleValue])
    case list(PickleList)
    case dict(PickleDict)
    case global(PickleGlobal)
    case storage(TorchStorageRef)
    case tensor(TorchTensorRef)
}

final class PickleList {
    var items: [PickleValue] = []
}

/// Insertion-ordered, as the OrderedDict of a state dict is.
final class PickleDict {
    var entries: [(key: PickleValue, value: PickleValue)] = []
}

/// The only globals the machine will name: what `torch.save` of a state dict writes.
enum PickleGlobal {
    case orderedDict
    case rebuildTensorV2
    case storageType(TorchDType)

    init?(module: String, name: String) {
        switch (module, name) {
        case ("collections", "OrderedDict"): self = .orderedDict
        case ("torch._utils", "_rebuild_tensor_v2"): self = .rebuildTensorV2
        case ("torch", _):
            guard let type = TorchDType(storageName: name) else { return nil }
            self = .storageType(type)
        default: return nil
        }
    }
}

/// A storage named by a persistent id: ('storage', type, key, location, numel[, view]).
struct TorchStorageRef {
    let type: TorchDType
    let key: String
    let count: Int
}

/// The arguments of one `_rebuild_tensor_v2` call.
struct TorchTensorRef {
    let storage: TorchStorageRef
    let storageOffset: Int
    let shape: [Int]
    let strides: [Int]
}

/// Element types of torch storages, by their legacy class names (`torch.FloatStorage`, ...).
package enum TorchDType: String, Sendable, Equatable, CaseIterable {
    case float32, float64, float16, bfloat16, int64, int32, int16, int8, uint8, bool

    init?(storageName: String) {
        let names: [String: TorchDType] = [
            "FloatStorage": .float32, "DoubleStorage": .float64, "HalfStorage": .float16, "BFloat16Storage": .bfloat16,
            "LongStorage": .int64, "IntStorage": .int32, "ShortStorage": .int16, "CharStorage": .int8,
            "ByteStorage": .uint8, "BoolStorage": .bool,
        ]
        guard let type = names[storageName] else { return nil }
        self = type
    }

    package var elementSize: Int {
        switch self {
        case .float64, .int64: 8
        case .float32, .int32: 4
        case .float16, .bfloat16, .int16: 2
        case .int8, .uint8, .bool: 1
        }
    }

    /// The engine's type for zero-copy views, where one exists.
    package var ggmlType: GGMLType? {
        switch self {
        case .float32: .f32
        case .float64: .f64
        case .float16: .f16
        case .bfloat16: .bf16
        case .int64: .i64
        case .int32: .i32
        case .int16: .i16
        case .int8: .i8
        case .uint8, .bool: nil
        }
    }
}
