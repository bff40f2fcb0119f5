/// Parses JSON text (RFC 8259) into a `JinjaValue`, keeping object key order, the way Python's
/// `json.loads` builds dicts. Grammar read:
///
///     value  = ws ( object | array | string | number | "true" | "false" | "null" ) ws
///     object = "{" [ string ":" value *( "," string ":" value ) ] "}"
///     array  = "[" [ value *( "," value ) ] "]"
///     number = [ "-" ] int [ "." 1*DIGIT ] [ ( "e" / "E" ) [ "+" / "-" ] 1*DIGIT ]
///
/// Numbers without fraction or exponent that fit in `Int` become `.int`, others `.double`.
/// Nesting is bounded (`maxDepth`) so hostile input cannot exhaust the stack.
extension JinjaValue {
    /// Parses `json`; throws `.invalidJSON` naming the line and column of the first error.
    package init(json: String, maxDepth: Int = 256) throws(JinjaError) {
        var parser = JSONTextParser(bytes: Array(json.utf8), maxDepth: maxDepth)
        self = try parser.parseDocument()
    }
}

private struct JSONTextParser {
    let bytes: [UInt8]
    let maxDepth: Int
    var pos = 0

    init(bytes: [UInt8], maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    mutating func parseDocument() throws(JinjaError) -> JinjaValue {
        let value = try parseValue(depth: 0)
        skipWhitespace()
        if pos < bytes.count { throw fail("unexpected text after the JSON value") }
        return value
    }

    func fail(_ message: String) -> JinjaError {
        var line = 1, column = 1
        for b in bytes[..<min(pos, bytes.count)] {
            if b == 0x0A { line += 1; column = 1 } else if b & 0xC0 != 0x80 { column += 1 }
        }
        return .invalidJSON(message: message, at: JinjaLocation(line: line, column: column))
    }

    mutating func skipWhitespace() {
        while pos < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[pos]) { pos += 1 }
    }

    mutating func expect(_ literal: String, _ value: JinjaValue) throws(JinjaError) -> JinjaValue {
        let lit = Array(literal.utf8)
        guard pos + lit.count <= bytes.count, Array(bytes[pos..<pos + lit.count]) == lit else {
            throw fail("expected '\(literal)'")
        }
        pos += lit.count
        return value
    }

    mutating func parseValue(depth: Int) throws(JinjaError) -> JinjaValue {
        if depth > maxDepth { throw fail("nesting deeper than \(maxDepth)") }
        skipWhitespace()
        guard pos < bytes.count else { throw fail("unexpected end of JSON") }
        switch bytes[pos] {
        case UInt8(ascii: "{"):
            pos += 1
            var object = JinjaObject()
            skipWhitespace()
            if pos < bytes.count, bytes[pos] == UInt8(ascii: "}") { pos += 1; return .object(object) }
            while true {
                skipWhitespace()
                guard pos < bytes.count, bytes[pos] == UInt8(ascii: "\"") else { throw fail("expected a string key") }
                let key = try parseString()
                skipWhitespace()
                guard pos < bytes.count, bytes[pos] == UInt8(ascii: ":") else { throw fail("expected ':'") }
                pos += 1
                object[key] = try parseValue(depth: depth + 1)
                skipWhitespace()
                guard pos < bytes.count else { throw fail("unexpected end of JSON") }
                if bytes[pos] == UInt8(ascii: ",") { pos += 1; continue }
                if bytes[pos] == UInt8(ascii: "}") { pos += 1; return .object(object) }
                throw fail("expected ',' or '}'")
            }
        case UInt8(ascii: "["):
            pos += 1
            var items: [JinjaValue] = []
            skipWhitespace()
            if pos < bytes.count, bytes[pos] == UInt8(ascii: "]") { pos += 1; return .array(items) }
            while true {
                items.append(try parseValue(depth: depth + 1))
                skipWhitespace()
                guard pos < bytes.count else { throw fail("unexpected end of JSON") }
                if bytes[pos] == UInt8(ascii: ",") { pos += 1; continue }
                if bytes[pos] == UInt8(ascii: "]") { pos += 1; return .array(items) }
                throw fail("expected ',' or ']'")
            }
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): return try expect("true", .bool(true))
        case UInt8(ascii: "f"): return try expect("false", .bool(false))
        case UInt8(ascii: "n"): return try expect("null", .none)
        default: return try parseNumber()
        }
    }

    mutating func parseNumber() throws(JinjaError) -> JinjaValue {
        let start = pos
        func digits(_ p: inout Int, _ b: [UInt8]) -> Int {
            let s = p
            while p < b.count, b[p] >= 0x30, b[p] <= 0x39 { p += 1 }
            return p - s
        }
        if pos < bytes.count, bytes[pos] == UInt8(ascii: "-") { pos += 1 }
        let intStart = pos
        let intDigits = digits(&pos, bytes)
        if intDigits == 0 || (intDigits > 1 && bytes[intStart] == 0x30) { throw fail("invalid number") }
        var isInteger = true
        if pos < bytes.count, bytes[pos] == UInt8(ascii: ".") {
            pos += 1
            isInteger = false
            if digits(&pos, bytes) == 0 { throw fail("invalid number") }
        }
        if pos < bytes.count, bytes[pos] == UInt8(ascii: "e") || bytes[pos] == UInt8(ascii: "E") {
            pos += 1
            isInteger = false
            if pos < bytes.count, bytes[pos] == UInt8(ascii: "+") || bytes[pos] == UInt8(ascii: "-") { pos += 1 }
            if digits(&pos, bytes) == 0 { throw fail("invalid number") }
        }
        let text = String(decoding: bytes[start..<pos], as: UTF8.self)
        if isInteger, let i = Int(text) { return .int(i) }
        guard let d = Double(text) else { throw fail("invalid number") }
        return .double(d)
    }

    mutating func parseString() throws(JinjaError) -> String {
        pos += 1  // opening quote
        var out: [UInt8] = []
        while pos < bytes.count {
            let b = bytes[pos]
            if b == UInt8(ascii: "\"") {
                pos += 1
                return String(decoding: out, as: UTF8.self)
            }
            if b < 0x20 { throw fail("control character in string") }
            if b != UInt8(ascii: "\\") {
                out.append(b)
                pos += 1
                continue
            }
            pos += 1
            guard pos < bytes.count else { break }
            let e = bytes[pos]
            pos += 1
            switch e {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var code = try hex4()
                if (0xD800..<0xDC00).contains(code), pos + 1 < bytes.count,
                   bytes[pos] == UInt8(ascii: "\\"), bytes[pos + 1] == UInt8(ascii: "u") {
                    let save = pos
                    pos += 2
                    let low = try hex4()
                    if (0xDC00..<0xE000).contains(low) {
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    } else {
                        pos = save
                    }
                }
                // A lone surrogate cannot be a Swift String scalar; it becomes U+FFFD.
                out.append(contentsOf: Array(String(Character(Unicode.Scalar(code) ?? "\u{FFFD}")).utf8))
            default: throw fail("invalid escape")
            }
        }
        throw fail("unterminated string")
    }

    mutating func hex4() throws(JinjaError) -> UInt32 {
        guard pos + 4 <= bytes.count, let v = UInt32(String(decoding: bytes[pos..<pos + 4], as: UTF8.self), radix: 16)
        else { throw fail("invalid \\u escape") }
        pos += 4
        return v
    }
}
