/// Attribute and item access through jinja2's `ImmutableSandboxedEnvironment`:
/// `x.name` tries a Python attribute first (methods such as `d.items`), then the item;
/// `x[key]` tries the item first, then the attribute. Missing values are undefined, not
/// errors. Dunder attributes and mutating methods (`list.append`, `dict.update`, …) come back
/// as an undefined that raises `SecurityError` when used, as in the sandbox.
extension Renderer {
    static let stringMethods: Set<String> = [
        "capitalize", "casefold", "center", "count", "endswith", "find", "format", "index", "isalnum", "isalpha",
        "isdigit", "islower", "isnumeric", "isspace", "istitle", "isupper", "join", "ljust", "lower", "lstrip",
        "partition", "removeprefix", "removesuffix", "replace", "rfind", "rindex", "rjust", "rpartition", "rsplit",
        "rstrip", "split", "splitlines", "startswith", "strip", "swapcase", "title", "upper", "zfill",
        "encode", "expandtabs", "format_map", "isascii", "isdecimal", "isidentifier", "isprintable", "maketrans",
        "translate",
    ]
    static let dictMethods: Set<String> = ["copy", "get", "items", "keys", "values", "fromkeys"]
    static let dictMutators: Set<String> = ["clear", "pop", "popitem", "setdefault", "update"]
    static let listMethods: Set<String> = ["copy", "count", "index"]
    static let listMutators: Set<String> = ["append", "clear", "extend", "insert", "pop", "remove", "reverse", "sort"]
    static let tupleMethods: Set<String> = ["count", "index"]

    /// The Python attribute `name` of `value`, or nil if the type has none.
    func pythonAttribute(_ value: Value, _ name: String) throws(JinjaError) -> Value? {
        if name.hasPrefix("__") && name.hasSuffix("__") && name.count > 4 {
            // Every Python object has dunders (`__class__`, `__init__`, …); the sandbox
            // refuses all of them.
            return Self.unsafe(value, name)
        }
        if name.hasPrefix("_") {
            // jinja2's loop, namespace and macro objects have private attributes
            // (`loop._iterator`, `_Namespace__attrs`, …), which the sandbox refuses too.
            switch value {
            case .loop, .namespace, .callable: return Self.unsafe(value, name)
            default: break
            }
        }
        let mutators: Set<String>, methods: Set<String>
        switch value {
        case .string: (methods, mutators) = (Self.stringMethods, [])
        case .dict: (methods, mutators) = (Self.dictMethods, Self.dictMutators)
        case .sequence(let s) where s.kind == .list: (methods, mutators) = (Self.listMethods, Self.listMutators)
        case .sequence(let s) where s.kind == .tuple: (methods, mutators) = (Self.tupleMethods, [])
        case .sequence(let s) where s.kind == .range:
            if let (start, stop, step) = s.rangeBounds {
                switch name {
                case "start": return .int(start)
                case "stop": return .int(stop)
                case "step": return .int(step)
                default: break
                }
            }
            (methods, mutators) = (Self.tupleMethods, [])
        case .namespace(let n): return n.attributes[name]
        case .loop(let l): return try l.attribute(name)
        default: return nil
        }
        if mutators.contains(name) { return Self.unsafe(value, name) }
        return methods.contains(name) ? .callable(.method(value, name)) : nil
    }

    /// The sandbox's `unsafe_undefined`: prints as nothing, raises `SecurityError` when used.
    static func unsafe(_ value: Value, _ name: String) -> Value {
        .undefined(UndefinedValue(hint: "access to attribute '\(name)' of '\(value.typeName)' object is unsafe.",
                                  unsafe: (name, value.typeName)))
    }

    /// `value.name` (jinja2 `Getattr` through the sandbox).
    func attribute(of value: Value, _ name: String, at loc: JinjaLocation) throws(JinjaError) -> Value {
        if case .undefined(let u) = value { throw u.error(at: loc) }
        if let attribute = try pythonAttribute(value, name) { return attribute }
        if case .dict(let d) = value, let v = d[name] { return v }
        return .undefined("'\(value.objectTypeRepr)' has no attribute '\(name)'")
    }

    /// `value[key]` (jinja2 `Getitem` through the sandbox).
    func item(of value: Value, _ key: Value, at loc: JinjaLocation) throws(JinjaError) -> Value {
        if case .undefined(let u) = value { throw u.error(at: loc) }
        switch (value, key) {
        case (.dict(let d), .string(let k)):
            if let v = d[k] { return v }
        case (.sequence(let s), _) where s.isIndexable:
            if let i = Self.index(key), let v = Self.element(s.items, i) { return v }
        case (.string(let s), _):
            if let i = Self.index(key) {
                let n = s.count
                let j = i < 0 ? i + n : i
                if j >= 0 && j < n { return .string(s.slice(j..<j + 1)) }
            }
        default:
            break
        }
        if case .string(let k) = key {
            if let attribute = try pythonAttribute(value, k.text) { return attribute }
            return .undefined("'\(value.objectTypeRepr)' has no attribute '\(k.text)'")
        }
        return .undefined("\(value.objectTypeRepr) has no element \(key.repr)")
    }

    static func index(_ key: Value) -> Int? {
        switch key {
        case .int(let i): return i
        case .bool(let b): return b ? 1 : 0
        default: return nil
        }
    }

    static func element(_ items: [Value], _ i: Int) -> Value? {
        let j = i < 0 ? i + items.count : i
        return j >= 0 && j < items.count ? items[j] : nil
    }

    /// `value[start:stop:step]` with Python's clamping and negative indices. jinja2 compiles
    /// slices to plain Python subscripts, bypassing the sandbox's forgiving `getitem`, so
    /// slicing something that is not a string, list or tuple is a `TypeError`.
    func slice(_ value: Value, _ start: Value, _ stop: Value, _ step: Value, at loc: JinjaLocation) throws(JinjaError) -> Value {
        if case .undefined(let u) = value { throw u.error(at: loc) }
        func bound(_ v: Value) -> Int?? {
            if case .none = v { return .some(nil) }
            return Self.index(v).map { .some($0) } ?? nil
        }
        let count: Int
        switch value {
        case .string(let s): count = s.count
        case .sequence(let s) where s.isIndexable: count = s.items.count
        case .dict: throw .typeMismatch(operation: "slice", message: "unhashable type: 'slice'", at: loc)
        default:
            throw .typeMismatch(operation: "slice", message: "'\(value.typeName)' object is not subscriptable", at: loc)
        }
        guard let a = bound(start), let b = bound(stop), let c = bound(step) else {
            throw .typeMismatch(operation: "slice", message: "slice indices must be integers or None or have an __index__ method", at: loc)
        }
        let stepValue = c ?? 1
        if stepValue == 0 { throw .invalidValue(operation: "slice", message: "slice step cannot be zero", at: loc) }
        let indices = Self.sliceIndices(count: count, start: a, stop: b, step: stepValue)
        switch value {
        case .string(let s):
            if stepValue == 1, let first = indices.first { return .string(s.slice(first..<first + indices.count)) }
            let scalars = Array(s.text.unicodeScalars), origins = s.scalarOrigins
            return .string(JinjaString(scalars: indices.map { (scalars[$0], origins[$0]) }))
        case .sequence(let s):
            if let (start, _, step) = s.rangeBounds {
                // Python's range slicing: bounds from `slice.indices`, mapped through the range.
                let (lo, hi) = Self.sliceBounds(count: count, start: a, stop: b, step: stepValue)
                return .sequence(.range(start + lo * step, start + hi * step, step * stepValue))
            }
            return .sequence(SequenceValue(indices.map { s.items[$0] }, kind: s.kind))
        default:
            throw .typeMismatch(operation: "slice", message: "'\(value.typeName)' object is not subscriptable", at: loc)
        }
    }

    /// Python's `slice.indices(count)`: the clamped start and stop.
    static func sliceBounds(count: Int, start: Int?, stop: Int?, step: Int) -> (Int, Int) {
        func clamp(_ i: Int?, _ defaultValue: Int, low: Int, high: Int) -> Int {
            guard var i else { return defaultValue }
            if i < 0 { i += count }
            return min(max(i, low), high)
        }
        if step > 0 { return (clamp(start, 0, low: 0, high: count), clamp(stop, count, low: 0, high: count)) }
        return (clamp(start, count - 1, low: -1, high: count - 1), clamp(stop, -1, low: -1, high: count - 1))
    }

    /// The positions a slice selects.
    static func sliceIndices(count: Int, start: Int?, stop: Int?, step: Int) -> [Int] {
        var (i, end) = sliceBounds(count: count, start: start, stop: stop, step: step)
        var out: [Int] = []
        while step > 0 ? i < end : i > end {
            out.append(i)
            i += step
        }
        return out
    }
}
