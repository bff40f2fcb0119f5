import Foundation
import StructuredOutput
import Testing
import Tools

@Suite struct CalculatorTests {
    @Test(arguments: [
        ("1 + 2 * 3", 7.0), ("(1 + 2) * 3", 9), ("2 ^ 3 ^ 2", 512), ("-2^2", -4), ("2^-1", 0.5), ("2 ** 10", 1024),
        ("10 / 4", 2.5), ("10 % 4", 2), ("-(3 - 5)", 2), ("+-+1", -1), (".5 + 1.25", 1.75), ("1e3 + 2E-1", 1000.2),
        ("sqrt(16) + abs(-3)", 7), ("round(2.5) + floor(2.7) + ceil(2.1)", 8), ("max(1, 5, 3) - min(4, 2)", 3),
        ("pow(2, 8)", 256), ("log(100)", 2), ("log(8, 2)", 3), ("ln(e)", 1), ("2 * pi", 2 * Double.pi), ("6 × 7 ÷ 2", 21),
        ("  12   ", 12), ("SQRT(9)", 3),
    ])
    func `expressions evaluate with the usual precedence`(_ text: String, _ expected: Double) throws {
        let v = try Calculator().evaluate(text)
        #expect(abs(v - expected) < 1e-9 * max(1, abs(expected)), "\(text) = \(v)")
    }

    @Test(arguments: [
        ("1 / 0", 2, "division by zero"), ("5 % 0", 2, "remainder by zero"), ("2 +", 3, "expected a number, found the end"),
        ("(1 + 2", 6, "expected ')', found the end"), ("2 3", 2, "expected an operator or the end of the expression, found '3'"),
        ("foo(1)", 0, "unknown name foo"), ("sqrt(1, 2)", 0, "sqrt takes 1 arguments, not 2"), ("sqrt(-1)", 0, "sqrt is undefined for [\"-1\"]"),
        ("10 ^ 400", 0, "the result is not a finite number"), ("1 + $", 4, "expected a number, '(' or a function name, found '$'"),
        ("2e", 1, "expected an operator or the end of the expression, found 'e'"), ("", 0, "expected a number, found the end"),
    ])
    func `bad expressions are typed errors with the place`(_ text: String, _ offset: Int, _ reason: String) {
        #expect(throws: EngineError.calculation(offset: offset, reason: reason)) { try Calculator().evaluate(text) }
    }

    @Test func `hostile input is refused without crashing`() {
        let deep = String(repeating: "(", count: 500) + "1" + String(repeating: ")", count: 500)
        #expect(throws: EngineError.self) { try Calculator().evaluate(deep) }
        let minus = String(repeating: "-", count: 900) + "1"
        #expect(throws: EngineError.self) { try Calculator().evaluate(minus) }
        let long = String(repeating: "1+", count: 5000) + "1"
        #expect(throws: EngineError.calculation(offset: 1000, reason: "expression longer than 1000 characters")) {
            try Calculator().evaluate(long)
        }
        var rng = SystemRandomNumberGenerator()
        let alphabet = Array("0123456789+-*/^%().,eE pisqrtabx×÷\u{0}🙂")
        for _ in 0..<2000 {
            let text = String((0..<Int.random(in: 0...40, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! })
            if let v = try? Calculator().evaluate(text) { #expect(v.isFinite, "\(text)") }
        }
    }

    @Test func `results read as a person would write them`() {
        #expect(Calculator.format(42) == "42")
        #expect(Calculator.format(-0.0) == "0")
        #expect(Calculator.format(0.1 + 0.2) == "0.3")
        #expect(Calculator.format(1.0 / 3) == "0.333333333333")
        #expect(Calculator.format(1e20) == "1e+20")
    }
}
