import Foundation
import StructuredOutput

/// Named constants and functions of `Calculator`.
extension CalculatorParser {
    static let constants: [String: Double] = ["pi": .pi, "π": .pi, "e": M_E]

    /// Functions by name, with how many arguments they take.
    static let functions: [String: (arity: ClosedRange<Int>, apply: @Sendable ([Double]) -> Double)] = [
        "sqrt": (1...1, { sqrt($0[0]) }),
        "abs": (1...1, { abs($0[0]) }),
        "round": (1...1, { $0[0].rounded() }),
        "floor": (1...1, { floor($0[0]) }),
        "ceil": (1...1, { ceil($0[0]) }),
        "exp": (1...1, { exp($0[0]) }),
        "ln": (1...1, { log($0[0]) }),
        "log": (1...2, { $0.count == 2 ? log($0[0]) / log($0[1]) : log10($0[0]) }),
        "log2": (1...1, { log2($0[0]) }),
        "log10": (1...1, { log10($0[0]) }),
        "sin": (1...1, { sin($0[0]) }),
        "cos": (1...1, { cos($0[0]) }),
        "tan": (1...1, { tan($0[0]) }),
        "asin": (1...1, { asin($0[0]) }),
        "acos": (1...1, { acos($0[0]) }),
        "atan": (1...1, { atan($0[0]) }),
        "min": (1...32, { $0.min() ?? 0 }),
        "max": (1...32, { $0.max() ?? 0 }),
        "pow": (2...2, { pow($0[0], $0[1]) }),
    ]

    mutating func named(depth: Int) throws(EngineError) -> Double {
        let start = i
        while i < scalars.count, scalars[i].properties.isAlphabetic || (scalars[i].isASCII && scalars[i].properties.numericType != nil) {
            i += 1
        }
        let name = String(String.UnicodeScalarView(scalars[start..<i])).lowercased()
        if let f = Self.functions[name] {
            guard take("(") else { throw fail("'(' after \(name)") }
            var args = [try expression(depth: depth + 1)]
            while take(",") { args.append(try expression(depth: depth + 1)) }
            guard take(")") else { throw fail("')'") }
            guard f.arity.contains(args.count) else {
                throw .calculation(offset: start, reason: "\(name) takes \(f.arity.lowerBound == f.arity.upperBound ? "\(f.arity.lowerBound)" : "\(f.arity.lowerBound) to \(f.arity.upperBound)") arguments, not \(args.count)")
            }
            let value = f.apply(args)
            guard value.isFinite else { throw .calculation(offset: start, reason: "\(name) is undefined for \(args.map(Calculator.format))") }
            return value
        }
        if let c = Self.constants[name] { return c }
        throw .calculation(offset: start, reason: "unknown name \(name)")
    }
}
