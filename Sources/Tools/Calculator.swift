import Foundation
import StructuredOutput

/// A safe arithmetic evaluator for the `calculate` tool: recursive descent over the text, no
/// `eval`, bounded input length and nesting, typed errors with the offending character offset.
///
/// Grammar (lowest precedence first):
///
///     expression := term (("+" | "-") term)*
///     term       := unary (("*" | "×" | "/" | "÷" | "%") unary)*
///     unary      := ("-" | "+") unary | power
///     power      := primary (("^" | "**") unary)?          right-associative; -2^2 = -4
///     primary    := number | "(" expression ")" | name | name "(" expression ("," expression)* ")"
///     number     := digits ["." digits] [("e" | "E") ["+" | "-"] digits]   (also ".5")
///
/// Names: the constants `pi` and `e`; functions sqrt, abs, round, floor, ceil, exp, ln, log
/// (base 10, or `log(x, base)`), log2, log10, sin, cos, tan, asin, acos, atan, min, max, pow.
/// `%` is the floating remainder. A result that is not finite is an error, never `inf`/`nan`.
package struct Calculator: Sendable {
    package static let maxLength = 1000
    package static let maxDepth = 64

    package init() {}

    /// Evaluates `text`.
    package func evaluate(_ text: String) throws(EngineError) -> Double {
        let scalars = Array(text.unicodeScalars)
        guard scalars.count <= Self.maxLength else {
            throw .calculation(offset: Self.maxLength, reason: "expression longer than \(Self.maxLength) characters")
        }
        var p = CalculatorParser(scalars: scalars)
        let value = try p.expression(depth: 0)
        p.skipSpaces()
        guard p.i == scalars.count else { throw p.fail("an operator or the end of the expression") }
        guard value.isFinite else { throw .calculation(offset: 0, reason: "the result is not a finite number") }
        return value
    }

    /// A value as the tool reports it: integers without a fraction, others to 12 significant
    /// digits (enough for arithmetic a person checks, without binary noise like 0.30000000000000004).
    package static func format(_ value: Double) -> String {
        if value == value.rounded() && abs(value) < 1e15 { return String(Int64(value)) }
        return String(format: "%.12g", value)
    }
}

struct CalculatorParser {
    let scalars: [Unicode.Scalar]
    var i = 0

    init(scalars: [Unicode.Scalar]) { self.scalars = scalars }

    func fail(_ expected: String) -> EngineError {
        let found = i < scalars.count ? "'\(Character(scalars[i]))'" : "the end"
        return .calculation(offset: i, reason: "expected \(expected), found \(found)")
    }

    mutating func skipSpaces() {
        while i < scalars.count, scalars[i].properties.isWhitespace { i += 1 }
    }

    /// Consumes `text` (after spaces) if it comes next.
    mutating func take(_ text: String) -> Bool {
        skipSpaces()
        let t = Array(text.unicodeScalars)
        guard scalars.count - i >= t.count, Array(scalars[i..<(i + t.count)]) == t else { return false }
        i += t.count
        return true
    }

    mutating func expression(depth: Int) throws(EngineError) -> Double {
        guard depth < Calculator.maxDepth else { throw .calculation(offset: i, reason: "nesting deeper than \(Calculator.maxDepth)") }
        var value = try term(depth: depth)
        while true {
            if take("+") { value += try term(depth: depth) } else if take("-") { value -= try term(depth: depth) } else { return value }
        }
    }

    mutating func term(depth: Int) throws(EngineError) -> Double {
        var value = try unary(depth: depth)
        while true {
            skipSpaces()
            let at = i
            if take("*") || take("×") {
                value *= try unary(depth: depth)
            } else if take("/") || take("÷") {
                let d = try unary(depth: depth)
                guard d != 0 else { throw .calculation(offset: at, reason: "division by zero") }
                value /= d
            } else if take("%") {
                let d = try unary(depth: depth)
                guard d != 0 else { throw .calculation(offset: at, reason: "remainder by zero") }
                value = fmod(value, d)
            } else {
                return value
            }
        }
    }

    mutating func unary(depth: Int) throws(EngineError) -> Double {
        guard depth < Calculator.maxDepth else { throw .calculation(offset: i, reason: "nesting deeper than \(Calculator.maxDepth)") }
        if take("-") { return -(try unary(depth: depth + 1)) }
        if take("+") { return try unary(depth: depth + 1) }
        return try power(depth: depth)
    }

    mutating func power(depth: Int) throws(EngineError) -> Double {
        let base = try primary(depth: depth)
        if take("^") || take("**") { return pow(base, try unary(depth: depth + 1)) }
        return base
    }

    mutating func primary(depth: Int) throws(EngineError) -> Double {
        skipSpaces()
        guard i < scalars.count else { throw fail("a number") }
        let c = scalars[i]
        if c == "(" {
            i += 1
            let v = try expression(depth: depth + 1)
            guard take(")") else { throw fail("')'") }
            return v
        }
        if c.properties.numericType != nil && c.isASCII || c == "." { return try number() }
        if c.properties.isAlphabetic { return try named(depth: depth) }
        throw fail("a number, '(' or a function name")
    }

    mutating func number() throws(EngineError) -> Double {
        let start = i
        func digits() -> Int {
            let s = i
            while i < scalars.count, scalars[i].isASCII, scalars[i].properties.numericType != nil { i += 1 }
            return i - s
        }
        var count = digits()
        if i < scalars.count, scalars[i] == "." {
            i += 1
            count += digits()
        }
        guard count > 0 else { throw fail("a digit") }
        if i < scalars.count, scalars[i] == "e" || scalars[i] == "E" {
            let mark = i
            i += 1
            if i < scalars.count, scalars[i] == "+" || scalars[i] == "-" { i += 1 }
            if digits() == 0 { i = mark }  // not an exponent: `e` is the constant or an error later
        }
        let text = String(String.UnicodeScalarView(scalars[start..<i]))
        guard let v = Double(text) else { i = start; throw fail("a number") }
        return v
    }
}
