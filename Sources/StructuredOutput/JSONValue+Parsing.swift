/// JSON text (RFC 8259) → `JSONValue`.
///
/// Layout read: optional whitespace (space, tab, CR, LF), one value, optional whitespace, end.
/// A value is `null` | `true` | `false` | number (`-`? (`0` | [1-9][0-9]*) (`.`[0-9]+)?
/// ([eE][+-]?[0-9]+)?) | string (`"` … `"` with escapes `\" \\ \/ \b \f \n \r \t \uXXXX`, surrogate
/// pairs joined, no raw control characters) | array `[` values `,`-separated `]` | object `{`
/// `"key"` `:` value pairs `,`-separated `}`. Nesting deeper than `maxDepth` is refused, so hostile
/// input cannot exhaust the stack.
extension JSONValue {
    package static let maxDepth = 64

    /// Parses one complete JSON document.
    package init(parsing text: String) throws(EngineError) {
        var parser = JSONParser(bytes: Array(text.utf8))
        self = try parser.document()
    }
}

package struct JSONParser {
    let bytes: [UInt8]
    var i = 0

    package init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func document() throws(EngineError) -> JSONValue {
        skipWhitespace()
        let v = try value(depth: 0)
        skipWhitespace()
        guard i == bytes.count else { throw fail("the end of the document") }
        return v
    }

    /// One value at the start of the bytes (after whitespace); returns it and the offset after it.
    package mutating func leadingValue() throws(EngineError) -> (JSONValue, end: Int) {
        skipWhitespace()
        let v = try value(depth: 0)
        return (v, i)
    }

    private func fail(_ expected: String) -> EngineError { .malformedJSON(offset: i, expected: expected) }

    private mutating func skipWhitespace() {
        while i < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { i += 1 }
    }

    private mutating func literal(_ word: String, _ v: JSONValue) throws(EngineError) -> JSONValue {
        let w = Array(word.utf8)
        guard bytes.count - i >= w.count, Array(bytes[i..<(i + w.count)]) == w else { throw fail("'\(word)'") }
        i += w.count
        return v
    }

    private mutating func value(depth: Int) throws(EngineError) -> JSONValue {
        guard depth < JSONValue.maxDepth else { throw fail("nesting at most \(JSONValue.maxDepth) deep") }
        guard i < bytes.count else { throw fail("a value") }
        switch bytes[i] {
        case UInt8(ascii: "n"): return try literal("null", .null)
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        case UInt8(ascii: "["):
            i += 1
            var items: [JSONValue] = []
            skipWhitespace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
            while true {
                skipWhitespace()
                items.append(try value(depth: depth + 1))
                skipWhitespace()
                guard i < bytes.count else { throw fail("',' or ']'") }
                if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                if bytes[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
                throw fail("',' or ']'")
            }
        case UInt8(ascii: "{"):
            i += 1
            var members: [JSONValue.Member] = []
            skipWhitespace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "}") { i += 1; return .object(members) }
            while true {
                skipWhitespace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw fail("a member name") }
                let key = try string()
                skipWhitespace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw fail("':'") }
                i += 1
                skipWhitespace()
                members.append(JSONValue.Member(key, try value(depth: depth + 1)))
                skipWhitespace()
                guard i < bytes.count else { throw fail("',' or '}'") }
                if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                if bytes[i] == UInt8(ascii: "}") { i += 1; return .object(members) }
                throw fail("',' or '}'")
            }
        default:
            throw fail("a value")
        }
    }

    private func isDigit(_ k: Int) -> Bool { k < bytes.count && bytes[k] >= 0x30 && bytes[k] <= 0x39 }

    private mutating func number() throws(EngineError) -> Double {
        let start = i
        if bytes[i] == UInt8(ascii: "-") { i += 1 }
        guard isDigit(i) else { throw fail("a digit") }
        if bytes[i] == UInt8(ascii: "0") { i += 1 } else { while isDigit(i) { i += 1 } }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            guard isDigit(i) else { throw fail("a fraction digit") }
            while isDigit(i) { i += 1 }
        }
        if i < bytes.count, bytes[i] | 0x20 == UInt8(ascii: "e") {
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard isDigit(i) else { throw fail("an exponent digit") }
            while isDigit(i) { i += 1 }
        }
        guard let v = Double(String(decoding: bytes[start..<i], as: UTF8.self)) else { throw fail("a number") }
        return v
    }

    private mutating func hex4() throws(EngineError) -> UInt32 {
        guard bytes.count - i >= 4 else { throw fail("four hex digits") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[i] | 0x20
            let d: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = c - 0x30
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = c - 0x61 + 10
            default: throw fail("a hex digit")
            }
            v = v << 4 | UInt32(d)
            i += 1
        }
        return v
    }

    private mutating func string() throws(EngineError) -> String {
        i += 1  // opening quote
        var out: [UInt8] = []
        while true {
            guard i < bytes.count else { throw fail("'\"'") }
            let b = bytes[i]
            if b == UInt8(ascii: "\"") { i += 1; break }
            guard b >= 0x20 else { throw fail("an escaped control character") }
            guard b == UInt8(ascii: "\\") else { out.append(b); i += 1; continue }
            i += 1
            guard i < bytes.count else { throw fail("an escape") }
            let e = bytes[i]
            i += 1
            switch e {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var code = try hex4()
                if (0xD800..<0xDC00).contains(code) {
                    guard bytes.count - i >= 2, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else {
                        throw fail("a low surrogate escape")
                    }
                    i += 2
                    let low = try hex4()
                    guard (0xDC00..<0xE000).contains(low) else { throw fail("a low surrogate") }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00..<0xE000).contains(code) {
                    throw fail("a high surrogate before a low one")
                }
                guard let scalar = Unicode.Scalar(code) else { throw fail("a Unicode scalar") }
                out.append(contentsOf: Array(String(Character(scalar)).utf8))
            default:
                throw fail("a valid escape")
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
