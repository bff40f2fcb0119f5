#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Python's printf-style `str % args` (the `%` operator on strings and jinja2's `format`
/// filter): `%[(key)][flags][width][.precision]type` with types `s r d i u o x X e E f F g G c %`.
/// Literal parts of the format keep their origins, `%s` of a string keeps the string's.
enum PythonPercentFormat {
    static func format(_ template: JinjaString, _ args: Value, at loc: JinjaLocation) throws(JinjaError) -> JinjaString {
        let s = template.scalars
        var out = JinjaString.empty
        var positional: [Value]
        var mapping: DictValue?
        // CPython treats any non-tuple, non-string argument with `__getitem__` (dicts, but
        // also lists and ranges) as a mapping, so leftover arguments are not an error then.
        var mappingLike = false
        switch args {
        case .sequence(let t) where t.kind == .tuple: positional = t.items
        case .dict(let d): positional = [args]; mapping = d; mappingLike = true
        case .sequence(let t) where t.isIndexable: positional = [args]; mappingLike = true
        default: positional = [args]
        }
        var next = 0
        var literalStart = 0
        var i = 0
        func fail(_ message: String) -> JinjaError { .typeMismatch(operation: "%", message: message, at: loc) }
        func take() throws(JinjaError) -> Value {
            guard next < positional.count else { throw fail("not enough arguments for format string") }
            next += 1
            return positional[next - 1]
        }
        while i < s.count {
            guard s[i] == "%" else { i += 1; continue }
            out.append(template.slice(literalStart..<i))
            i += 1
            guard i < s.count else { throw .invalidValue(operation: "%", message: "incomplete format", at: loc) }
            var key: String?
            if s[i] == "(" {
                var depth = 1, j = i + 1
                while j < s.count, depth > 0 {
                    if s[j] == "(" { depth += 1 } else if s[j] == ")" { depth -= 1 }
                    j += 1
                }
                guard depth == 0 else { throw .invalidValue(operation: "%", message: "incomplete format key", at: loc) }
                key = String(String.UnicodeScalarView(s[(i + 1)..<(j - 1)]))
                i = j
            }
            var flags = ""
            while i < s.count, "-+ #0".unicodeScalars.contains(s[i]) { flags.unicodeScalars.append(s[i]); i += 1 }
            var width = ""
            if i < s.count, s[i] == "*" { width = String(try starWidth(try take(), loc)); i += 1 }
            while i < s.count, PythonText.isDigit(s[i]) { width.unicodeScalars.append(s[i]); i += 1 }
            var precision: String?
            if i < s.count, s[i] == "." {
                i += 1
                var p = ""
                if i < s.count, s[i] == "*" { p = String(try starWidth(try take(), loc)); i += 1 }
                while i < s.count, PythonText.isDigit(s[i]) { p.unicodeScalars.append(s[i]); i += 1 }
                precision = p.isEmpty ? "0" : p
            }
            while i < s.count, "hlL".unicodeScalars.contains(s[i]) { i += 1 }
            guard i < s.count else { throw .invalidValue(operation: "%", message: "incomplete format", at: loc) }
            let type = s[i]
            i += 1
            literalStart = i
            if type == "%" { out.append(JinjaString("%", origin: template.uniformOrigin ?? .template)); continue }
            let value: Value
            if let key {
                guard let mapping else { throw fail("format requires a mapping") }
                guard let v = mapping[key] else {
                    throw .invalidValue(operation: "%", message: "KeyError: '\(key)'", at: loc)
                }
                value = v
            } else {
                value = try take()
            }
            out.append(try convert(value, type: type, flags: flags, width: width, precision: precision, at: loc))
        }
        out.append(template.slice(literalStart..<s.count))
        if !mappingLike && next < positional.count { throw fail("not all arguments converted during string formatting") }
        return out
    }

    static func convert(_ value: Value, type: Unicode.Scalar, flags: String, width: String, precision: String?,
                        at loc: JinjaLocation) throws(JinjaError) -> JinjaString {
        if case .undefined(let u) = value, type != "s" { throw u.error(at: loc) }
        switch type {
        case "s", "r", "a":
            var text = type == "s" ? value.str : JinjaString(value.repr, origin: .data)
            if let precision, let p = Int(precision), p < text.count { text = text.slice(0..<p) }
            let pad = max(0, (Int(width) ?? 0) - text.count)
            guard pad > 0 else { return text }
            let spaces = JinjaString(String(repeating: " ", count: pad), origin: .template)
            return flags.contains("-") ? text + spaces : spaces + text
        case "c":
            if case .string(let t) = value, t.count == 1 { return t }
            guard case .int(let code)? = value.number, let scalar = Unicode.Scalar(UInt32(clamping: code)) else {
                throw .typeMismatch(operation: "%", message: "%c requires int or char", at: loc)
            }
            return JinjaString(String(Character(scalar)), origin: .data)
        case "d", "i", "u", "o", "x", "X":
            let integer: Int
            switch value.number {
            case .int(let n)?: integer = n
            case .double(let d)? where d.isFinite: integer = Int(d.rounded(.towardZero))
            default:
                throw .typeMismatch(operation: "%", message: "%\(type) format: a real number is required, not \(value.typeName)", at: loc)
            }
            let c = type == "i" || type == "u" ? "d" : String(type)
            var text = cFormat("%\(flags)\(width)\(precision.map { "." + $0 } ?? "")ll\(c)", integer)
            if type == "o" && flags.contains("#") { text = pythonOctal(text) }
            return JinjaString(text, origin: .data)
        case "e", "E", "f", "F", "g", "G":
            guard let number = value.number else {
                throw .typeMismatch(operation: "%", message: "must be real number, not \(value.typeName)", at: loc)
            }
            let spec = "%\(flags)\(width).\(precision ?? "6")\(type)"
            return JinjaString(PythonFloat.format(number.asDouble, spec: spec), origin: .data)
        default:
            throw .invalidValue(operation: "%", message: "unsupported format character '\(type)'", at: loc)
        }
    }

    /// The value of a `*` width or precision.
    static func starWidth(_ v: Value, _ loc: JinjaLocation) throws(JinjaError) -> Int {
        guard case .int(let i) = v else { throw .typeMismatch(operation: "%", message: "* wants int", at: loc) }
        return i
    }

    /// C's `%#o` writes `017`; Python writes `0o17`.
    static func pythonOctal(_ text: String) -> String {
        guard let i = text.firstIndex(of: "0") else { return text }
        return String(text[..<i]) + "0o" + String(text[text.index(after: i)...])
    }

    static func cFormat(_ spec: String, _ value: Int) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        _ = withVaList([Int64(value)]) { vsnprintf(&buffer, buffer.count, spec, $0) }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
