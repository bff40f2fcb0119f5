/// Python's protocols over `Value`: type names, truthiness, `str`, `repr`, `len`, iteration.
extension Value {
    /// `type(x).__name__`.
    var typeName: String {
        switch self {
        case .undefined: return "Undefined"
        case .none: return "NoneType"
        case .bool: return "bool"
        case .int: return "int"
        case .double: return "float"
        case .string: return "str"
        case .sequence(let s):
            switch s.kind {
            case .list: return "list"
            case .tuple: return "tuple"
            case .generator: return "generator"
            case .reverseIterator: return "list_reverseiterator"
            case .keysView: return "dict_keys"
            case .valuesView: return "dict_values"
            case .itemsView: return "dict_items"
            case .range: return "range"
            }
        case .dict: return "dict"
        case .namespace: return "Namespace"
        case .callable(let c): return c.typeName
        case .loop: return "LoopContext"
        }
    }

    /// jinja2's `object_type_repr`, used in undefined hints: `None` or `dict object`.
    var objectTypeRepr: String {
        if case .none = self { return "None" }
        return "\(typeName) object"
    }

    /// Python truthiness. Generators and iterators are always true, even when empty.
    var isTruthy: Bool {
        switch self {
        case .undefined, .none: return false
        case .bool(let b): return b
        case .int(let i): return i != 0
        case .double(let d): return d != 0
        case .string(let s): return !s.text.isEmpty
        case .sequence(let s): return s.hasLength ? !s.items.isEmpty : true
        case .dict(let d): return d.count > 0
        case .namespace, .callable, .loop: return true
        }
    }

    /// Whether this is `None`.
    var isNone: Bool {
        if case .none = self { return true }
        return false
    }

    /// Whether this is an undefined value.
    var isUndefined: Bool {
        if case .undefined = self { return true }
        return false
    }

    /// `str(x)`: strings keep their origins, everything else is computed text (`.data`).
    var str: JinjaString {
        switch self {
        case .undefined: return .empty
        case .string(let s): return s
        default: return JinjaString(repr, origin: .data)
        }
    }

    /// `repr(x)` (for strings: quoted; inside containers every value is shown by repr, so an
    /// undefined item prints as `Undefined`).
    var repr: String {
        switch self {
        case .undefined: return "Undefined"
        case .none: return "None"
        case .bool(let b): return b ? "True" : "False"
        case .int(let i): return String(i)
        case .double(let d): return PythonFloat.repr(d)
        case .string(let s): return Self.repr(string: s.text)
        case .sequence(let s):
            let inner = s.items.map(\.repr).joined(separator: ", ")
            switch s.kind {
            case .list: return "[\(inner)]"
            case .tuple: return s.items.count == 1 ? "(\(inner),)" : "(\(inner))"
            case .generator: return "<generator object>"
            case .reverseIterator: return "<list_reverseiterator object>"
            case .keysView, .valuesView, .itemsView: return "\(typeName)([\(inner)])"
            case .range:
                let (start, stop, step) = s.rangeBounds ?? (0, s.items.count, 1)
                return step == 1 ? "range(\(start), \(stop))" : "range(\(start), \(stop), \(step))"
            }
        case .dict(let d): return Self.repr(dict: d)
        case .namespace(let n): return "<Namespace \(Self.repr(dict: n.attributes))>"
        case .callable(let c): return c.repr
        case .loop(let l): return l.description
        }
    }

    static func repr(dict: DictValue) -> String {
        "{" + dict.entries.map { "\(repr(string: $0.0.text)): \($0.1.repr)" }.joined(separator: ", ") + "}"
    }

    /// Python's `repr` of a string: single quotes unless the text has `'` and no `"`.
    static func repr(string: String) -> String {
        let quote: Unicode.Scalar = string.unicodeScalars.contains("'") && !string.unicodeScalars.contains("\"") ? "\"" : "'"
        var out = String.UnicodeScalarView()
        out.append(quote)
        for s in string.unicodeScalars {
            switch s {
            case quote, "\\": out.append("\\"); out.append(s)
            case "\t": out.append(contentsOf: "\\t".unicodeScalars)
            case "\n": out.append(contentsOf: "\\n".unicodeScalars)
            case "\r": out.append(contentsOf: "\\r".unicodeScalars)
            default:
                if PythonText.isPrintable(s) {
                    out.append(s)
                } else {
                    let hex = String(s.value, radix: 16)
                    let (prefix, width) = s.value < 0x100 ? ("\\x", 2) : s.value < 0x10000 ? ("\\u", 4) : ("\\U", 8)
                    out.append(contentsOf: (prefix + String(repeating: "0", count: width - hex.count) + hex).unicodeScalars)
                }
            }
        }
        out.append(quote)
        return String(out)
    }

    /// `len(x)`, or nil where Python raises `TypeError` (numbers, generators, …).
    var length: Int? {
        switch self {
        case .undefined: return 0
        case .string(let s): return s.count
        case .sequence(let s): return s.hasLength ? s.items.count : nil
        case .dict(let d): return d.count
        default: return nil
        }
    }

    /// `list(iter(x))`, or nil where Python raises `TypeError`. Strings iterate by scalar
    /// (keeping origins), dicts by key, undefined as empty.
    var iterated: [Value]? {
        switch self {
        case .undefined: return []
        case .string(let s): return (0..<s.count).map { .string(s.slice($0..<$0 + 1)) }
        case .sequence(let s): return s.items
        case .dict(let d): return d.keys.map { .string($0) }
        default: return nil
        }
    }

    /// `iter(x)` or the `TypeError` Python raises.
    func iterate(at location: JinjaLocation) throws(JinjaError) -> [Value] {
        guard let items = iterated else {
            throw .typeMismatch(operation: "iteration", message: "'\(typeName)' object is not iterable", at: location)
        }
        return items
    }

    /// How deeply containers nest in this value, counted up to `limit + 1` (so the walk itself
    /// stays bounded).
    func nestingDepth(upTo limit: Int) -> Int {
        guard limit >= 0 else { return 1 }
        func deepest(_ values: some Sequence<Value>) -> Int {
            var d = 0
            for v in values {
                d = max(d, v.nestingDepth(upTo: limit - 1))
                if d > limit - 1 { break }
            }
            return 1 + d
        }
        switch self {
        case .sequence(let s): return deepest(s.items)
        case .dict(let d): return deepest(d.values)
        case .namespace(let n): return deepest(n.attributes.values)
        default: return 0
        }
    }

    /// The number value for arithmetic (`bool` counts as `int`), or nil.
    var number: Number? {
        switch self {
        case .bool(let b): return .int(b ? 1 : 0)
        case .int(let i): return .int(i)
        case .double(let d): return .double(d)
        default: return nil
        }
    }

    /// An `int`/`float` operand.
    enum Number {
        case int(Int)
        case double(Double)

        var asDouble: Double {
            switch self {
            case .int(let i): return Double(i)
            case .double(let d): return d
            }
        }
    }
}
