/// Tokens inside `{{ … }}` and `{% … %}`: jinja2's tag rules, tried in its order (whitespace,
/// float, integer, name, string, operator) after the closing delimiter, which only counts
/// when brackets are balanced.
extension Lexer {
    static let operators: [String] = [
        "//", "**", "==", "!=", ">=", "<=",
        "+", "-", "/", "*", "%", "~", "[", "]", "(", ")", "{", "}", ">", "<", "=", ".", ":", "|", ",", ";",
    ]

    mutating func lexTag(isBlock: Bool) throws(JinjaError) {
        var brackets: [Unicode.Scalar] = []
        while pos < source.count {
            if brackets.isEmpty {
                let end = isBlock ? blockEnd(at: pos) : variableEnd(at: pos)
                if let end {
                    tokens.append(Token(kind: isBlock ? .blockEnd : .variableEnd, location: location(pos)))
                    lineStarting = source[end - 1] == "\n"
                    pos = end
                    return
                }
            }
            let c = source[pos]
            if PythonText.isSpace(c) { pos += 1; continue }
            let start = pos
            let loc = location(start)
            if let (value, end) = lexFloat(at: start) {
                tokens.append(Token(kind: .float(value), location: loc))
                pos = end
            } else if let (value, end) = try lexInteger(at: start, location: loc) {
                tokens.append(Token(kind: .integer(value), location: loc))
                pos = end
            } else if PythonText.isNameStart(c) {
                var i = start + 1
                while i < source.count, PythonText.isNameContinue(source[i]) { i += 1 }
                tokens.append(Token(kind: .name(text(start..<i)), location: loc))
                pos = i
            } else if c == "'" || c == "\"", let end = stringEnd(at: start) {
                let body = text(start + 1..<end - 1)
                tokens.append(Token(kind: .string(try StringLiteral.decode(body, at: loc)), location: loc))
                pos = end
            } else if let op = Self.operators.first(where: { starts(with: $0, at: start) }) {
                switch op {
                case "(": brackets.append(")")
                case "[": brackets.append("]")
                case "{": brackets.append("}")
                case ")", "]", "}":
                    guard let expected = brackets.popLast() else {
                        throw .syntax(message: "unexpected '\(op)'", at: loc)
                    }
                    if String(expected) != op {
                        throw .syntax(message: "unexpected '\(op)', expected '\(expected)'", at: loc)
                    }
                default: break
                }
                tokens.append(Token(kind: .op(op), location: loc))
                pos += op.unicodeScalars.count
            } else {
                throw .syntax(message: "unexpected char '\(c)'", at: loc)
            }
        }
    }

    /// Number literals may separate digits with `_`.
    static func withoutUnderscores(_ s: String) -> String { String(s.unicodeScalars.filter { $0 != "_" }) }

    /// `-}}` plus following whitespace, or `}}`.
    func variableEnd(at offset: Int) -> Int? {
        if starts(with: "-}}", at: offset) {
            var i = offset + 3
            while i < source.count, PythonText.isSpace(source[i]) { i += 1 }
            return i
        }
        return starts(with: "}}", at: offset) ? offset + 2 : nil
    }

    /// Digits with single underscores between them (`(\d+_)*\d+`); the end offset or nil.
    func digitRun(at offset: Int, isDigit: (Unicode.Scalar) -> Bool = PythonText.isDigit) -> Int? {
        var i = offset
        guard i < source.count, isDigit(source[i]) else { return nil }
        while i < source.count {
            if isDigit(source[i]) { i += 1; continue }
            if source[i] == "_", i + 1 < source.count, isDigit(source[i + 1]) { i += 1; continue }
            break
        }
        return i
    }

    /// jinja2's float rule: digits, then either `[.digits]e[+-]digits` or `.digits`; not right
    /// after a `.` (so `x.0.1` is an attribute chain).
    func lexFloat(at offset: Int) -> (Double, Int)? {
        if offset > 0, source[offset - 1] == "." { return nil }
        guard let intEnd = digitRun(at: offset) else { return nil }
        func exponent(at i: Int) -> Int? {
            guard i < source.count, source[i] == "e" || source[i] == "E" else { return nil }
            var j = i + 1
            if j < source.count, source[j] == "+" || source[j] == "-" { j += 1 }
            return digitRun(at: j)
        }
        var end: Int?
        if intEnd < source.count, source[intEnd] == ".", let fracEnd = digitRun(at: intEnd + 1) {
            end = exponent(at: fracEnd) ?? fracEnd
        } else {
            end = exponent(at: intEnd)
        }
        guard let end, let value = Double(Self.withoutUnderscores(text(offset..<end))) else { return nil }
        return (value, end)
    }

    /// jinja2's integer rule: `0b…`, `0o…`, `0x…`, a decimal not starting with 0, or zeros.
    func lexInteger(at offset: Int, location loc: JinjaLocation) throws(JinjaError) -> (Int, Int)? {
        guard PythonText.isDigit(source[offset]) else { return nil }
        if source[offset] == "0", offset + 1 < source.count {
            let radixes: [(Unicode.Scalar, Int)] = [("b", 2), ("o", 8), ("x", 16)]
            let marker = Unicode.Scalar(source[offset + 1].properties.lowercaseMapping.unicodeScalars.first ?? "0")
            if let (_, radix) = radixes.first(where: { $0.0 == marker }) {
                var i = offset + 2
                var digits = ""
                while i < source.count {
                    if source[i] == "_", i + 1 < source.count, source[i + 1] != "_" { i += 1; continue }
                    guard source[i].isASCII, Int(String(source[i]), radix: radix) != nil else { break }
                    digits.unicodeScalars.append(source[i])
                    i += 1
                }
                if !digits.isEmpty {
                    guard let value = Int(digits, radix: radix) else {
                        throw .integerOverflow(operation: "integer literal", at: loc)
                    }
                    return (value, i)
                }
            }
        }
        var end = offset + 1
        if source[offset] == "0" {
            while end < source.count {
                if source[end] == "0" { end += 1 } else if source[end] == "_", end + 1 < source.count, source[end + 1] == "0" {
                    end += 2
                } else { break }
            }
            return (0, end)
        }
        end = digitRun(at: offset) ?? end
        guard let value = Int(Self.withoutUnderscores(text(offset..<end))) else {
            throw .integerOverflow(operation: "integer literal", at: loc)
        }
        return (value, end)
    }

    /// The offset after a quoted string starting at `offset`, or nil if it never closes.
    func stringEnd(at offset: Int) -> Int? {
        let quote = source[offset]
        var i = offset + 1
        while i < source.count {
            if source[i] == "\\" { i += 2; continue }
            if source[i] == quote { return i + 1 }
            i += 1
        }
        return nil
    }
}
