/// A value during rendering: the Python object model jinja2 works with, reduced to what chat
/// templates meet. Strings carry origins (`JinjaString`); containers hold `Value`s.
enum Value {
    /// jinja2's `Undefined` (see `UndefinedValue`).
    case undefined(UndefinedValue)
    /// `None`.
    case none
    /// `True` / `False`.
    case bool(Bool)
    /// A Python `int` limited to 64 bits (overflow is an error, not a wrap).
    case int(Int)
    /// A Python `float`.
    case double(Double)
    /// A Python `str`.
    case string(JinjaString)
    /// A list, tuple, generator or dict view.
    case sequence(SequenceValue)
    /// A `dict`.
    case dict(DictValue)
    /// A `namespace()` object: the one mutable value (`{% set ns.x = … %}`).
    case namespace(NamespaceObject)
    /// A macro, global function or bound method.
    case callable(CallableValue)
    /// The `loop` variable of a `for` loop.
    case loop(LoopState)

    /// A template string literal or other template-written text.
    static func template(_ text: String) -> Value { .string(JinjaString(text, origin: .template)) }

    /// Text computed by the interpreter from data.
    static func data(_ text: String) -> Value { .string(JinjaString(text, origin: .data)) }

    /// A plain undefined value with jinja2's hint text.
    static func undefined(_ hint: String) -> Value { .undefined(UndefinedValue(hint: hint)) }

    /// A list.
    static func list(_ items: [Value]) -> Value { .sequence(SequenceValue(items, kind: .list)) }

    /// A tuple.
    static func tuple(_ items: [Value]) -> Value { .sequence(SequenceValue(items, kind: .tuple)) }

    /// Converts a context value; strings take `origin`.
    init(_ value: JinjaValue, origin: JinjaOrigin) {
        switch value {
        case .undefined: self = .undefined(UndefinedValue(hint: "value is undefined"))
        case .none: self = .none
        case .bool(let b): self = .bool(b)
        case .int(let i): self = .int(i)
        case .double(let d): self = .double(d)
        case .string(let s): self = .string(JinjaString(s, origin: origin))
        case .array(let items): self = .list(items.map { Value($0, origin: origin) })
        case .object(let object):
            var dict = DictValue()
            for (key, item) in object.entries { dict[JinjaString(key, origin: origin)] = Value(item, origin: origin) }
            self = .dict(dict)
        }
    }
}
