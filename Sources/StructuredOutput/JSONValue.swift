/// A JSON value. Objects keep their members in document order, because a schema's property
/// order is the order constrained decoding generates them in.
package indirect enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// JSON does not distinguish integers; a number is an integer when it has no fraction.
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([Member])

    /// One `"key": value` pair of an object.
    package struct Member: Sendable, Hashable {
        package var key: String
        package var value: JSONValue
        package init(_ key: String, _ value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    /// The first member named `key` of an object; nil for other values.
    package subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    package var string: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    package var number: Double? {
        if case .number(let n) = self { return n }
        return nil
    }

    package var members: [Member]? {
        if case .object(let m) = self { return m }
        return nil
    }

    /// Whether some object in the value has two members of the same name.
    package var repeatsMemberName: Bool {
        switch self {
        case .object(let members): Set(members.map(\.key)).count < members.count || members.contains { $0.value.repeatsMemberName }
        case .array(let items): items.contains { $0.repeatsMemberName }
        default: false
        }
    }

    /// The JSON Schema type name of the value ("integer" for whole numbers).
    package var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number(let n): n.rounded() == n && n.isFinite ? "integer" : "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    /// Compact JSON text: no insignificant whitespace; strings escape only `"`, `\` and control
    /// characters (everything else stays raw UTF-8); integral numbers print without a fraction.
    package var serialized: String {
        var out = ""
        append(to: &out)
        return out
    }

    private func append(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let n): out += Self.numberText(n)
        case .string(let s): Self.appendQuoted(s, to: &out)
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                item.append(to: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (i, m) in members.enumerated() {
                if i > 0 { out += "," }
                Self.appendQuoted(m.key, to: &out)
                out += ":"
                m.value.append(to: &out)
            }
            out += "}"
        }
    }

    /// Numbers as JSON allows them (NaN and infinities, which JSON cannot spell, become null).
    static func numberText(_ n: Double) -> String {
        guard n.isFinite else { return "null" }
        if n.rounded() == n && abs(n) < 1e15 { return String(Int64(n)) }
        return "\(n)"
    }

    /// `s` as a JSON string literal.
    package static func quoted(_ s: String) -> String {
        var out = ""
        appendQuoted(s, to: &out)
        return out
    }

    static func appendQuoted(_ s: String, to out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case let c where c.value < 0x20:
                let hex = String(c.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}

extension JSONValue: CustomStringConvertible {
    package var description: String { serialized }
}
