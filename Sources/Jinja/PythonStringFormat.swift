/// Python's `str.format` as jinja2's sandbox runs it: replacement fields `{}`, `{0}`,
/// `{name}`, with `.attr` / `[key]` lookups through the sandbox, `!s` / `!r` conversions and
/// a format spec `[[fill]align][sign][0][width][.precision][type]` for `s d f e g x o b %`.
/// `{{` and `}}` are literal braces. Literal parts keep the format string's origins.
enum PythonStringFormat {
    static func format(_ template: JinjaString, _ args: CallArguments, renderer: Renderer,
                       at loc: JinjaLocation) throws(JinjaError) -> JinjaString {
        let s = template.scalars
        var out = JinjaString.empty
        var literalStart = 0
        var autoIndex = 0
        var numbering: Bool?  // true: automatic `{}`, false: manual `{0}`; Python forbids mixing
        var i = 0
        func fail(_ message: String) -> JinjaError { .invalidValue(operation: "str.format", message: message, at: loc) }
        while i < s.count {
            let c = s[i]
            if c == "}" {
                guard i + 1 < s.count, s[i + 1] == "}" else { throw fail("Single '}' encountered in format string") }
                out.append(template.slice(literalStart..<i + 1))
                i += 2
                literalStart = i
                continue
            }
            guard c == "{" else { i += 1; continue }
            if i + 1 < s.count, s[i + 1] == "{" {
                out.append(template.slice(literalStart..<i + 1))
                i += 2
                literalStart = i
                continue
            }
            out.append(template.slice(literalStart..<i))
            var j = i + 1
            while j < s.count, s[j] != "}" {
                if s[j] == "{" { throw .unsupported(construct: "nested replacement field in str.format", at: loc) }
                j += 1
            }
            guard j < s.count else { throw fail("Single '{' encountered in format string") }
            let field = String(String.UnicodeScalarView(s[(i + 1)..<j]))
            i = j + 1
            literalStart = i
            let (name, conversion, spec) = split(field)
            // The field name: an argument index or keyword, then `.attr` / `[key]` parts.
            var head = ""
            var rest = Substring(name)
            while let f = rest.first, f != ".", f != "[" { head.append(f); rest = rest.dropFirst() }
            var value: Value
            if head.isEmpty || Int(head) != nil {
                let automatic = head.isEmpty
                if let numbering, numbering != automatic {
                    throw fail(automatic ? "cannot switch from manual field specification to automatic field numbering"
                                         : "cannot switch from automatic field numbering to manual field specification")
                }
                numbering = automatic
            }
            if head.isEmpty {
                guard autoIndex < args.positional.count else { throw fail("Replacement index \(autoIndex) out of range") }
                value = args.positional[autoIndex]
                autoIndex += 1
            } else if let index = Int(head) {
                guard index < args.positional.count else { throw fail("Replacement index \(index) out of range") }
                value = args.positional[index]
            } else {
                guard let v = args.keywords.last(where: { $0.name == head })?.value else { throw fail("KeyError: '\(head)'") }
                value = v
            }
            while let f = rest.first {
                rest = rest.dropFirst()
                var part = ""
                if f == "." {
                    while let g = rest.first, g != ".", g != "[" { part.append(g); rest = rest.dropFirst() }
                    value = try renderer.attribute(of: value, part, at: loc)
                } else {
                    while let g = rest.first, g != "]" { part.append(g); rest = rest.dropFirst() }
                    rest = rest.dropFirst()
                    value = try renderer.item(of: value, Int(part).map { .int($0) } ?? .template(part), at: loc)
                }
            }
            if conversion == "r" { value = .data(value.repr) }
            out.append(try apply(spec: spec, to: value, at: loc))
        }
        out.append(template.slice(literalStart..<s.count))
        return out
    }

    static func split(_ field: String) -> (String, String?, String) {
        var name = field, conversion: String?, spec = ""
        if let colon = field.firstIndex(of: ":") {
            name = String(field[..<colon])
            spec = String(field[field.index(after: colon)...])
        }
        if let bang = name.firstIndex(of: "!") {
            conversion = String(name[name.index(after: bang)...])
            name = String(name[..<bang])
        }
        return (name, conversion, spec)
    }

    static func apply(spec: String, to value: Value, at loc: JinjaLocation) throws(JinjaError) -> JinjaString {
        if spec.isEmpty { return value.str }
        var chars = Array(spec)
        var fill: Character = " ", align: Character?
        if chars.count >= 2, "<>^=".contains(chars[1]) { fill = chars[0]; align = chars[1]; chars.removeFirst(2) } else if let f = chars.first, "<>^=".contains(f) {
            align = f
            chars.removeFirst()
        }
        var sign = ""
        if let f = chars.first, "+- ".contains(f) { sign = String(f); chars.removeFirst() }
        if chars.first == "0" { if align == nil { fill = "0"; align = "=" }; chars.removeFirst() }
        var width = ""
        while let f = chars.first, f.isNumber { width.append(f); chars.removeFirst() }
        var precision: String?
        if chars.first == "." {
            chars.removeFirst()
            var p = ""
            while let f = chars.first, f.isNumber { p.append(f); chars.removeFirst() }
            precision = p
        }
        let type = chars.first.map(String.init) ?? ""
        guard chars.count <= 1 else { throw .unsupported(construct: "format spec '\(spec)'", at: loc) }
        var body: JinjaString
        var defaultAlign: Character = "<"
        switch (type, value) {
        case ("", .string(let t)), ("s", .string(let t)):
            body = precision.flatMap(Int.init).map { $0 < t.count ? t.slice(0..<$0) : t } ?? t
        case ("", _) where value.number != nil, ("d", _), ("f", _), ("F", _), ("e", _), ("E", _), ("g", _), ("G", _),
             ("x", _), ("X", _), ("o", _), ("b", _), ("%", _):
            guard let number = value.number else {
                throw .invalidValue(operation: "str.format", message: "Unknown format code '\(type)' for object of type '\(value.typeName)'", at: loc)
            }
            defaultAlign = ">"
            body = JinjaString(try formatNumber(number, type: type, sign: sign, precision: precision, at: loc), origin: .data)
        default:
            throw .unsupported(construct: "format spec '\(spec)' for \(value.typeName)", at: loc)
        }
        let pad = max(0, (Int(width) ?? 0) - body.count)
        guard pad > 0 else { return body }
        let fillText = { (n: Int) in JinjaString(String(repeating: fill, count: n), origin: .template) }
        switch align ?? defaultAlign {
        case "<": return body + fillText(pad)
        case "^": return fillText(pad / 2) + body + fillText(pad - pad / 2)
        case "=":
            if let first = body.text.unicodeScalars.first, first == "-" || first == "+" || first == " " {
                return body.slice(0..<1) + fillText(pad) + body.slice(1..<body.count)
            }
            return fillText(pad) + body
        default: return fillText(pad) + body
        }
    }

    static func formatNumber(_ number: Value.Number, type: String, sign: String, precision: String?,
                             at loc: JinjaLocation) throws(JinjaError) -> String {
        let signFlag = sign == "-" ? "" : sign
        switch type {
        case "", "d", "x", "X", "o", "b":
            guard case .int(let i) = number else {
                if type.isEmpty, case .double(let d) = number {
                    return precision == nil ? PythonFloat.repr(d) : PythonFloat.format(d, spec: "%\(signFlag).\(precision!)g")
                }
                throw .invalidValue(operation: "str.format", message: "Unknown format code '\(type)' for object of type 'float'", at: loc)
            }
            let radix = ["x": 16, "X": 16, "o": 8, "b": 2][type] ?? 10
            var digits = String(i.magnitude, radix: radix, uppercase: type == "X")
            digits = (i < 0 ? "-" : (sign == "+" ? "+" : sign == " " ? " " : "")) + digits
            return digits
        case "%":
            return PythonFloat.format(number.asDouble * 100, spec: "%\(signFlag).\(precision ?? "6")f") + "%"
        default:
            return PythonFloat.format(number.asDouble, spec: "%\(signFlag).\(precision ?? "6")\(type)")
        }
    }
}
