/// A value passed from Swift into a template's render context: JSON-shaped, with objects that
/// keep their key order (jinja2 iterates and `tojson`-prints dicts in insertion order, so the
/// order a tool schema was written in is the order the model sees).
package enum JinjaValue: Sendable, Equatable {
    /// jinja2's `Undefined`: prints as nothing, is falsy, fails on arithmetic.
    case undefined
    /// Python's `None` (JSON `null`).
    case none
    /// A boolean; prints as `True`/`False` like Python.
    case bool(Bool)
    /// An integer.
    case int(Int)
    /// A float; prints like Python's `repr` (`1.0`, `1e-05`).
    case double(Double)
    /// A string.
    case string(String)
    /// A list.
    case array([JinjaValue])
    /// A dict with ordered string keys.
    case object(JinjaObject)

    /// Converts loosely typed Swift values: `String`, `Bool`, integers, `Double`/`Float`,
    /// `[Any]`, `[String: Any]` (keys sorted, since Swift dictionaries have no order; build a
    /// `JinjaObject` or use `init(json:)` to keep an order). `nil` and unknown types become `.none`.
    package init(any value: Any?) {
        switch value {
        case nil: self = .none
        case let v as JinjaValue: self = v
        case let v as String: self = .string(v)
        case let v as Substring: self = .string(String(v))
        case let v as Bool: self = .bool(v)
        case let v as Int: self = .int(v)
        case let v as Int32: self = .int(Int(v))
        case let v as Int64: self = .int(Int(v))
        case let v as UInt8: self = .int(Int(v))
        case let v as Double: self = .double(v)
        case let v as Float: self = .double(Double(v))
        case let v as [Any?]: self = .array(v.map { JinjaValue(any: $0) })
        case let v as [Any]: self = .array(v.map { JinjaValue(any: $0) })
        case let v as JinjaObject: self = .object(v)
        case let v as [String: Any?]:
            self = .object(JinjaObject(v.keys.sorted().map { ($0, JinjaValue(any: v[$0] ?? nil)) }))
        case let v as [String: Any]:
            self = .object(JinjaObject(v.keys.sorted().map { ($0, JinjaValue(any: v[$0])) }))
        default: self = .none
        }
    }

    /// The member `key` of an object, or nil.
    package subscript(key: String) -> JinjaValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }
}

extension JinjaValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral {
    /// `.string`.
    package init(stringLiteral value: String) { self = .string(value) }
    /// `.int`.
    package init(integerLiteral value: Int) { self = .int(value) }
    /// `.double`.
    package init(floatLiteral value: Double) { self = .double(value) }
    /// `.bool`.
    package init(booleanLiteral value: Bool) { self = .bool(value) }
    /// `.array`.
    package init(arrayLiteral elements: JinjaValue...) { self = .array(elements) }
    /// Keys keep the order they are written in.
    package init(dictionaryLiteral elements: (String, JinjaValue)...) { self = .object(JinjaObject(elements)) }
    /// `nil` is Python's `None`.
    package init(nilLiteral: ()) { self = .none }
}
