#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `int`, `float` and `round` filters with Python's parsing and rounding.
extension Renderer {
    /// jinja2's `int` filter: `int(value, base)` for strings, `int(value)` otherwise, then
    /// `int(float(value))`, else `default`.
    static func toInt(_ value: Value, default fallback: Value, base: Int, at loc: JinjaLocation) throws(JinjaError) -> Value {
        if case .undefined(let u) = value { throw u.error(at: loc) }
        switch value {
        case .bool(let b): return .int(b ? 1 : 0)
        case .int(let i): return .int(i)
        case .double(let d):
            guard d.isFinite, let i = Int(exactly: d.rounded(.towardZero)) else { return fallback }
            return .int(i)
        case .string(let s):
            if let i = parseInt(s.text, base: base) { return .int(i) }
            if let d = parseFloat(s.text), d.isFinite, let i = Int(exactly: d.rounded(.towardZero)) { return .int(i) }
            return fallback
        default:
            return fallback
        }
    }

    /// jinja2's `float` filter conversion, nil where Python raises `TypeError`/`ValueError`.
    static func toFloat(_ value: Value) -> Value? {
        switch value {
        case .bool(let b): return .double(b ? 1 : 0)
        case .int(let i): return .double(Double(i))
        case .double(let d): return .double(d)
        case .string(let s): return parseFloat(s.text).map { .double($0) }
        default: return nil
        }
    }

    /// Python's `int(text, base)`: surrounding whitespace, a sign, a `0x`/`0o`/`0b` prefix
    /// matching `base`, and single underscores between digits.
    static func parseInt(_ text: String, base: Int) -> Int? {
        var s = Substring(text)
        while let f = s.unicodeScalars.first, PythonText.isSpace(f) { s = s.dropFirst() }
        while let l = s.unicodeScalars.last, PythonText.isSpace(l) { s = s.dropLast() }
        var negative = false
        if s.hasPrefix("-") || s.hasPrefix("+") { negative = s.hasPrefix("-"); s = s.dropFirst() }
        let lower = s.lowercased()
        let prefixes: [(String, Int)] = [("0x", 16), ("0o", 8), ("0b", 2)]
        for (prefix, radix) in prefixes where radix == base && lower.hasPrefix(prefix) {
            s = s.dropFirst(2)
            if s.hasPrefix("_") { s = s.dropFirst() }
        }
        guard !s.isEmpty, !s.hasPrefix("_"), !s.hasSuffix("_"), !s.contains("__") else { return nil }
        guard let magnitude = Int(String(s.filter { $0 != "_" }), radix: base) , !s.hasPrefix("+"), !s.hasPrefix("-") else { return nil }
        return negative ? -magnitude : magnitude
    }

    /// Python's `float(text)`: decimal or exponent notation with optional underscores between
    /// digits, `inf`/`infinity`/`nan` in any case, surrounding whitespace.
    static func parseFloat(_ text: String) -> Double? {
        var s = Substring(text)
        while let f = s.unicodeScalars.first, PythonText.isSpace(f) { s = s.dropFirst() }
        while let l = s.unicodeScalars.last, PythonText.isSpace(l) { s = s.dropLast() }
        var body = s
        var sign = 1.0
        if body.hasPrefix("-") || body.hasPrefix("+") { sign = body.hasPrefix("-") ? -1 : 1; body = body.dropFirst() }
        switch body.lowercased() {
        case "inf", "infinity": return sign * .infinity
        case "nan": return .nan
        default: break
        }
        let allowed = Set("0123456789._eE+-")
        guard !body.isEmpty, body.allSatisfy({ allowed.contains($0) }), body.first != "_", body.last != "_" else { return nil }
        let chars = Array(body)
        for (i, c) in chars.enumerated() where c == "_" {
            guard i > 0, i + 1 < chars.count, chars[i - 1].isNumber, chars[i + 1].isNumber else { return nil }
        }
        guard chars.contains(where: \.isNumber), let d = Double(String(chars.filter { $0 != "_" })) else { return nil }
        return sign * d
    }

    /// jinja2's `round`: Python's `round(value, precision)`, or `floor`/`ceil` scaled.
    func round(_ value: Value, precision: Value, method: String, at loc: JinjaLocation) throws(JinjaError) -> Value {
        guard ["common", "ceil", "floor"].contains(method) else {
            throw .invalidValue(operation: "round", message: "method must be common, ceil or floor", at: loc)
        }
        guard let p = Self.index(precision) else {
            throw .typeMismatch(operation: "round", message: "'\(precision.typeName)' object cannot be interpreted as an integer", at: loc)
        }
        guard let number = value.number else {
            throw .typeMismatch(operation: "round", message: "type \(value.typeName) doesn't define __round__ method", at: loc)
        }
        if method == "common" {
            switch number {
            case .int(let i):
                guard p < 0 else { return .int(i) }
                var scale = 1
                for _ in 0..<min(-p, 18) { scale *= 10 }
                let q = Double(i) / Double(scale)
                return .int(Int(q.rounded(.toNearestOrEven)) * scale)
            case .double(let d):
                return .double(PythonFloat.round(d, p))
            }
        }
        let scale = pow(10.0, Double(p))
        let scaled = number.asDouble * scale
        guard scaled.isFinite else { throw .integerOverflow(operation: "round", at: loc) }
        return .double((method == "floor" ? scaled.rounded(.down) : scaled.rounded(.up)) / scale)
    }
}
