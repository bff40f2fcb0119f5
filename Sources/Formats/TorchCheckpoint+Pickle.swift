/// A pickle virtual machine restricted to what `torch.save` writes for a state dict.
///
/// Pickle is a stack language whose GLOBAL + REDUCE can call any Python function, so a general
/// unpickler runs arbitrary code. This one knows no functions: it builds plain values (None,
/// bools, ints, floats, strings, tuples, lists, dicts) and recognises exactly three kinds of
/// global — `collections.OrderedDict`, `torch._utils._rebuild_tensor_v2` and the `torch.*Storage`
/// classes — which it interprets itself. Any other global or opcode is refused with its byte
/// offset. Opcodes follow CPython's `Lib/pickletools.py` (protocols 2 to 4).
struct PickleMachine {
    let bytes: UnsafeRawBufferPointer
    private(set) var offset: Int
    private var stack: [PickleValue] = []
    private var marks: [Int] = []
    private var memo: [Int: PickleValue] = [:]
    /// Every storage a persistent id named, by key: the legacy layout needs their element types
    /// to walk the raw storages that follow the pickles.
    private(set) var storages: [String: TorchStorageRef] = [:]

    init(bytes: UnsafeRawBufferPointer, offset: Int) {
        self.bytes = bytes
        self.offset = offset
    }

    /// Runs one pickle from `offset` to its STOP; afterwards `offset` is just past the STOP.
    mutating func run() throws(FormatError) -> PickleValue {
        stack.removeAll(keepingCapacity: true)
        marks.removeAll()
        memo.removeAll()
        while true {
            let at = offset
            let op = try byte("pickle opcode")
            switch op {
            case 0x80:  // PROTO
                let version = try byte("PROTO version")
                guard (2...5).contains(version) else { throw .pickleMalformed(detail: "protocol \(version)", offset: at) }
            case 0x95: offset = try advance(8, "FRAME length")  // FRAME: a hint for buffered readers
            case 0x2E: return try pop(at)  // STOP
            case 0x28: marks.append(stack.count)  // MARK
            case 0x30: _ = try pop(at)  // POP
            case 0x31: _ = try popMark(at)  // POP_MARK
            case 0x4E: stack.append(.none)
            case 0x88: stack.append(.bool(true))
            case 0x89: stack.append(.bool(false))
            case 0x4A: stack.append(.int(Int(Int32(truncatingIfNeeded: try uint(4, "BININT")))))
            case 0x4B: stack.append(.int(Int(try byte("BININT1"))))
            case 0x4D: stack.append(.int(Int(try uint(2, "BININT2"))))
            case 0x8A: stack.append(try long(count: Int(try byte("LONG1 length")), at))
            case 0x8B: stack.append(try long(count: Int(Int32(truncatingIfNeeded: try uint(4, "LONG4 length"))), at))
            case 0x47:  // BINFLOAT: big-endian IEEE double
                stack.append(.float(Double(bitPattern: try uint(8, "BINFLOAT").byteSwapped)))
            case 0x58: stack.append(.string(try string(length: Int(try uint(4, "BINUNICODE length")), at)))
            case 0x8C: stack.append(.string(try string(length: Int(try byte("SHORT_BINUNICODE length")), at)))
            case 0x8D: stack.append(.string(try string(length: Int(clamping: try uint(8, "BINUNICODE8 length")), at)))
            case 0x55: stack.append(.string(try string(length: Int(try byte("SHORT_BINSTRING length")), at)))
            case 0x54: stack.append(.string(try string(length: Int(Int32(truncatingIfNeeded: try uint(4, "BINSTRING length"))), at)))
            case 0x29: stack.append(.tuple([]))
            case 0x5D: stack.append(.list(PickleList()))
            case 0x7D: stack.append(.dict(PickleDict()))
            case 0x74: stack.append(.tuple(try popMark(at)))  // TUPLE
            case 0x85, 0x86, 0x87:  // TUPLE1..3
                let n = Int(op - 0x84)
                guard stack.count - (marks.last ?? 0) >= n else { throw .pickleMalformed(detail: "stack underflow", offset: at) }
                let items = Array(stack.suffix(n))
                stack.removeLast(n)
                stack.append(.tuple(items))
            case 0x6C:  // LIST
                let list = PickleList()
                list.items = try popMark(at)
                stack.append(.list(list))
            case 0x64:  // DICT
                let dict = PickleDict()
                try setItems(dict, try popMark(at), at)
                stack.append(.dict(dict))
            case 0x61:  // APPEND
                let value = try pop(at)
                guard case .list(let list) = try top(at) else { throw .pickleMalformed(detail: "APPEND to a non-list", offset: at) }
                list.items.append(value)
            case 0x65:  // APPENDS
                let items = try popMark(at)
                guard case .list(let list) = try top(at) else { throw .pickleMalformed(detail: "APPENDS to a non-list", offset: at) }
                list.items += items
            case 0x73:  // SETITEM
                let value = try pop(at), key = try pop(at)
                guard case .dict(let dict) = try top(at) else { throw .pickleMalformed(detail: "SETITEM on a non-dict", offset: at) }
                dict.entries.append((key, value))
            case 0x75:  // SETITEMS
                let items = try popMark(at)
                guard case .dict(let dict) = try top(at) else { throw .pickleMalformed(detail: "SETITEMS on a non-dict", offset: at) }
                try setItems(dict, items, at)
            case 0x71: memo[Int(try byte("BINPUT index"))] = try top(at)
            case 0x72: memo[Int(try uint(4, "LONG_BINPUT index"))] = try top(at)
            case 0x94: memo[memo.count] = try top(at)  // MEMOIZE
            case 0x68: stack.append(try recall(Int(try byte("BINGET index")), at))
            case 0x6A: stack.append(try recall(Int(try uint(4, "LONG_BINGET index")), at))
            case 0x63:  // GLOBAL: "module\nname\n"
                let module = try line(at), name = try line(at)
                stack.append(.global(try global(module: module, name: name, at)))
            case 0x93:  // STACK_GLOBAL
                let name = try pop(at), module = try pop(at)
                guard case .string(let m) = module, case .string(let n) = name else {
                    throw .pickleMalformed(detail: "STACK_GLOBAL needs two strings", offset: at)
                }
                stack.append(.global(try global(module: m, name: n, at)))
            case 0x52:  // REDUCE
                let args = try pop(at), callable = try pop(at)
                stack.append(try reduce(callable, args, at))
            case 0x62:  // BUILD: only the OrderedDict's `_metadata` attribute, which inference ignores
                _ = try pop(at)
                guard case .dict = try top(at) else { throw .pickleMalformed(detail: "BUILD on a non-dict", offset: at) }
            case 0x51: stack.append(.storage(try persistentStorage(try pop(at), at)))  // BINPERSID
            default: throw .pickleOpcodeRefused(opcode: op, offset: at)
            }
        }
    }

    // MARK: - Interpretation of the allowed globals

    private func global(module: String, name: String, _ at: Int) throws(FormatError) -> PickleGlobal {
        guard let global = PickleGlobal(module: module, name: name) else {
            throw .pickleGlobalRefused(module: module, name: name, offset: at)
        }
        return global
    }

    private func reduce(_ callable: PickleValue, _ args: PickleValue, _ at: Int) throws(FormatError) -> PickleValue {
        guard case .global(let global) = callable, case .tuple(let a) = args else {
            throw .pickleMalformed(detail: "REDUCE of a non-global", offset: at)
        }
        switch global {
        case .orderedDict:
            guard a.isEmpty else { throw .pickleMalformed(detail: "OrderedDict with arguments", offset: at) }
            return .dict(PickleDict())
        case .rebuildTensorV2:
            // (storage, storage_offset, size, stride, requires_grad, backward_hooks[, metadata])
            guard a.count == 6 || a.count == 7, case .storage(let storage) = a[0], case .int(let storageOffset) = a[1],
                  let shape = Self.ints(a[2]), let strides = Self.ints(a[3]), shape.count == strides.count,
                  storageOffset >= 0, shape.allSatisfy({ $0 >= 0 }), strides.allSatisfy({ $0 >= 0 }) else {
                throw .pickleMalformed(detail: "_rebuild_tensor_v2 arguments", offset: at)
            }
            return .tensor(TorchTensorRef(storage: storage, storageOffset: storageOffset, shape: shape, strides: strides))
        case .storageType:
            throw .pickleMalformed(detail: "a storage class called directly", offset: at)
        }
    }

    private mutating func persistentStorage(_ pid: PickleValue, _ at: Int) throws(FormatError) -> TorchStorageRef {
        guard case .tuple(let t) = pid, t.count == 5 || t.count == 6, case .string("storage") = t[0],
              case .global(.storageType(let type)) = t[1], case .string(let key) = t[2], case .string = t[3],
              case .int(let count) = t[4], count >= 0 else {
            throw .pickleMalformed(detail: "persistent id is not ('storage', type, key, location, numel)", offset: at)
        }
        if t.count == 6, case .none = t[5] {} else if t.count == 6 {
            throw .pickleMalformed(detail: "storage views (legacy view metadata) are not read", offset: at)
        }
        let storage = TorchStorageRef(type: type, key: key, count: count)
        if let seen = storages[key], seen.type != type || seen.count != count {
            throw .pickleMalformed(detail: "storage '\(key)' named with two types or sizes", offset: at)
        }
        storages[key] = storage
        return storage
    }

    private static func ints(_ value: PickleValue) -> [Int]? {
        guard case .tuple(let items) = value else { return nil }
        var out: [Int] = []
        for item in items {
            guard case .int(let v) = item else { return nil }
            out.append(v)
        }
        return out
    }

    // MARK: - Stack and byte helpers

    private mutating func setItems(_ dict: PickleDict, _ items: [PickleValue], _ at: Int) throws(FormatError) {
        guard items.count % 2 == 0 else { throw .pickleMalformed(detail: "odd number of dict items", offset: at) }
        for i in stride(from: 0, to: items.count, by: 2) { dict.entries.append((items[i], items[i + 1])) }
    }

    private mutating func pop(_ at: Int) throws(FormatError) -> PickleValue {
        guard stack.count > (marks.last ?? 0) else { throw .pickleMalformed(detail: "stack underflow", offset: at) }
        return stack.removeLast()
    }

    private func top(_ at: Int) throws(FormatError) -> PickleValue {
        guard stack.count > (marks.last ?? 0), let value = stack.last else {
            throw .pickleMalformed(detail: "stack underflow", offset: at)
        }
        return value
    }

    private mutating func popMark(_ at: Int) throws(FormatError) -> [PickleValue] {
        guard let mark = marks.popLast() else { throw .pickleMalformed(detail: "no MARK", offset: at) }
        let items = Array(stack[mark...])
        stack.removeSubrange(mark...)
        return items
    }

    private func recall(_ index: Int, _ at: Int) throws(FormatError) -> PickleValue {
        guard let value = memo[index] else { throw .pickleMalformed(detail: "memo \(index) is empty", offset: at) }
        return value
    }

    private func advance(_ n: Int, _ field: String) throws(FormatError) -> Int {
        guard n >= 0, bytes.count - offset >= n else {
            throw .truncated(field: field, offset: offset, needed: n, fileSize: bytes.count)
        }
        return offset + n
    }

    private mutating func byte(_ field: String) throws(FormatError) -> UInt8 {
        offset = try advance(1, field)
        return bytes[offset - 1]
    }

    private mutating func uint(_ n: Int, _ field: String) throws(FormatError) -> UInt64 {
        let start = offset
        offset = try advance(n, field)
        var v: UInt64 = 0
        for i in 0..<n { v |= UInt64(bytes[start + i]) << (8 * UInt64(i)) }
        return v
    }

    private mutating func long(count: Int, _ at: Int) throws(FormatError) -> PickleValue {
        guard count >= 0 else { throw .pickleMalformed(detail: "negative LONG length", offset: at) }
        let start = offset
        offset = try advance(count, "LONG bytes")
        let raw = Array(bytes[start..<offset])
        guard count <= 8 else { return .bigInt(raw) }
        guard count > 0 else { return .int(0) }
        var v: UInt64 = raw.last! >= 0x80 ? ~0 : 0  // sign-extend
        for (i, b) in raw.enumerated() {
            v &= ~(0xFF << (8 * UInt64(i)))
            v |= UInt64(b) << (8 * UInt64(i))
        }
        return .int(Int(Int64(bitPattern: v)))
    }

    private mutating func string(length: Int, _ at: Int) throws(FormatError) -> String {
        let start = offset
        offset = try advance(length, "pickle string")
        guard let s = String(validating: bytes[start..<offset], as: UTF8.self) else {
            throw .invalidUTF8(field: "pickle string", offset: start)
        }
        return s
    }

    private mutating func line(_ at: Int) throws(FormatError) -> String {
        let start = offset
        while offset < bytes.count, bytes[offset] != 0x0A { offset += 1 }
        guard offset < bytes.count else { throw .truncated(field: "GLOBAL name", offset: start, needed: 1, fileSize: bytes.count) }
        offset += 1
        guard let s = String(validating: bytes[start..<offset - 1], as: UTF8.self) else {
            throw .invalidUTF8(field: "GLOBAL name", offset: start)
        }
        return s
    }
}
