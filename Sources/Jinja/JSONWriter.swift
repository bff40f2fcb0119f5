/// Python's `json.dumps` as transformers' `tojson` filter calls it:
/// `json.dumps(x, ensure_ascii=False, indent=indent, separators=separators, sort_keys=sort_keys)`.
/// Separators default to `(', ', ': ')`, or `(',', ': ')` when indenting; floats print as
/// Python's `repr` (`NaN`, `Infinity` for the specials); an integer indent is that many
/// spaces per level, a string indent is used as is.
struct JSONWriter {
    let ensureASCII: Bool
    let indent: String?
    let itemSeparator: String
    let keySeparator: String
    let sortKeys: Bool

    init(ensureASCII: Bool, indent: Value, separators: Value, sortKeys: Bool, at loc: JinjaLocation) throws(JinjaError) {
        self.ensureASCII = ensureASCII
        self.sortKeys = sortKeys
        switch indent {
        case .none: self.indent = nil
        case .int(let n): self.indent = String(repeating: " ", count: max(0, n))
        case .string(let s): self.indent = s.text
        default:
            throw .typeMismatch(operation: "tojson", message: "indent must be an int or a string, not \(indent.typeName)", at: loc)
        }
        switch separators {
        case .none:
            itemSeparator = self.indent == nil ? ", " : ","
            keySeparator = ": "
        case .sequence(let s) where s.items.count == 2 && (s.kind == .list || s.kind == .tuple):
            itemSeparator = s.items[0].str.text
            keySeparator = s.items[1].str.text
        default:
            throw .invalidValue(operation: "tojson", message: "separators must be a (item_separator, key_separator) pair", at: loc)
        }
    }

    func write(_ value: Value, at loc: JinjaLocation) throws(JinjaError) -> String {
        var out = ""
        try write(value, level: 0, into: &out, at: loc)
        return out
    }

    private func newline(_ level: Int) -> String {
        guard let indent else { return "" }
        return "\n" + String(repeating: indent, count: level)
    }

    private func write(_ value: Value, level: Int, into out: inout String, at loc: JinjaLocation) throws(JinjaError) {
        switch value {
        case .none: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .double(let d):
            out += d.isNaN ? "NaN" : d.isInfinite ? (d < 0 ? "-Infinity" : "Infinity") : PythonFloat.repr(d)
        case .string(let s): writeString(s.text, into: &out)
        case .sequence(let s) where s.kind == .list || s.kind == .tuple:
            guard !s.items.isEmpty else { out += "[]"; return }
            out += "["
            for (i, item) in s.items.enumerated() {
                if i > 0 { out += itemSeparator }
                out += newline(level + 1)
                try write(item, level: level + 1, into: &out, at: loc)
            }
            out += newline(level) + "]"
        case .dict(let d):
            guard d.count > 0 else { out += "{}"; return }
            var entries = Array(d.entries)
            if sortKeys { entries.sort { Value.compareScalars($0.0.text, $1.0.text) < 0 } }
            out += "{"
            for (i, (key, item)) in entries.enumerated() {
                if i > 0 { out += itemSeparator }
                out += newline(level + 1)
                writeString(key.text, into: &out)
                out += keySeparator
                try write(item, level: level + 1, into: &out, at: loc)
            }
            out += newline(level) + "}"
        default:
            throw .typeMismatch(operation: "tojson", message: "Object of type \(value.typeName) is not JSON serializable", at: loc)
        }
    }

    /// A JSON string: `"` `\` and controls escaped (`\n`, `\u001b`, …); non-ASCII kept, or as
    /// `\uXXXX` (surrogate pairs above the BMP) with `ensure_ascii`.
    private func writeString(_ s: String, into out: inout String) {
        out += "\""
        for c in s.unicodeScalars {
            switch c {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            default:
                if c.value < 0x20 || (ensureASCII && c.value > 0x7E) {
                    if c.value > 0xFFFF {
                        let v = c.value - 0x10000
                        out += Self.hex4(0xD800 + (v >> 10)) + Self.hex4(0xDC00 + (v & 0x3FF))
                    } else {
                        out += Self.hex4(c.value)
                    }
                } else {
                    out.unicodeScalars.append(c)
                }
            }
        }
        out += "\""
    }

    private static func hex4(_ v: UInt32) -> String {
        let h = String(v, radix: 16)
        return "\\u" + String(repeating: "0", count: 4 - h.count) + h
    }
}
