#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Python's binary operators and comparisons. Undefined operands fail (jinja2's `Undefined`
/// defines every arithmetic dunder to raise), except in `~`, which prints them as empty.
extension Renderer {
    func binary(_ op: Expression.BinaryOperator, _ a: Value, _ b: Value, at loc: JinjaLocation) throws(JinjaError) -> Value {
        if case .undefined(let u) = a { throw u.error(at: loc) }
        if case .undefined(let u) = b { throw u.error(at: loc) }
        if let x = a.number, let y = b.number { return try arithmetic(op, x, y, at: loc) }
        switch (op, a, b) {
        case (.add, .string(let s), .string(let t)):
            try checkSize(s.count + t.count, at: loc)
            return .string(s + t)
        case (.add, .sequence(let s), .sequence(let t)) where s.kind == t.kind && (s.kind == .list || s.kind == .tuple):
            try checkSize(s.items.count + t.items.count, at: loc)
            return .sequence(SequenceValue(s.items + t.items, kind: s.kind))
        case (.multiply, .string(let s), .int), (.multiply, .string(let s), .bool),
             (.multiply, .int, .string(let s)), (.multiply, .bool, .string(let s)):
            let n = max(0, (a.number ?? b.number).map { if case .int(let i) = $0 { return i } else { return 0 } } ?? 0)
            try checkSize(s.count.multipliedReportingOverflow(by: n).overflow ? Int.max : s.count * n, at: loc)
            var out = JinjaString.empty
            for _ in 0..<n { out.append(s) }
            return .string(out)
        case (.multiply, .sequence(let s), .int), (.multiply, .sequence(let s), .bool),
             (.multiply, .int, .sequence(let s)), (.multiply, .bool, .sequence(let s)):
            guard s.kind == .list || s.kind == .tuple, case .int(let times)? = a.number ?? b.number else { break }
            let n = max(0, times)
            try checkSize(s.items.count.multipliedReportingOverflow(by: n).overflow ? Int.max : s.items.count * n, at: loc)
            return .sequence(SequenceValue(Array(repeating: s.items, count: n).flatMap { $0 }, kind: s.kind))
        case (.modulo, .string(let format), _):
            return .string(try PythonPercentFormat.format(format, b, at: loc))
        default:
            break
        }
        throw .typeMismatch(operation: op.rawValue,
                            message: "unsupported operand type(s) for \(op.rawValue): '\(a.typeName)' and '\(b.typeName)'",
                            at: loc)
    }

    func arithmetic(_ op: Expression.BinaryOperator, _ x: Value.Number, _ y: Value.Number, at loc: JinjaLocation) throws(JinjaError) -> Value {
        if case .int(let i) = x, case .int(let j) = y {
            func checked(_ r: (partialValue: Int, overflow: Bool)) throws(JinjaError) -> Value {
                if r.overflow { throw .integerOverflow(operation: op.rawValue, at: loc) }
                return .int(r.partialValue)
            }
            switch op {
            case .add: return try checked(i.addingReportingOverflow(j))
            case .subtract: return try checked(i.subtractingReportingOverflow(j))
            case .multiply: return try checked(i.multipliedReportingOverflow(by: j))
            case .divide:
                if j == 0 { throw .divisionByZero(at: loc) }
                return .double(Double(i) / Double(j))
            case .floorDivide, .modulo:
                if j == 0 { throw .divisionByZero(at: loc) }
                if i == .min && j == -1 { throw .integerOverflow(operation: op.rawValue, at: loc) }
                var q = i / j, r = i % j
                if r != 0 && ((r < 0) != (j < 0)) { q -= 1; r += j }
                return .int(op == .floorDivide ? q : r)
            case .power:
                if j < 0 {
                    if i == 0 { throw .divisionByZero(at: loc) }
                    return .double(pow(Double(i), Double(j)))
                }
                var result = 1, base = i, e = j
                while e > 0 {
                    if e & 1 == 1 {
                        let r = result.multipliedReportingOverflow(by: base)
                        if r.overflow { throw .integerOverflow(operation: op.rawValue, at: loc) }
                        result = r.partialValue
                    }
                    e >>= 1
                    if e > 0 {
                        let r = base.multipliedReportingOverflow(by: base)
                        if r.overflow { throw .integerOverflow(operation: op.rawValue, at: loc) }
                        base = r.partialValue
                    }
                }
                return .int(result)
            }
        }
        let p = x.asDouble, q = y.asDouble
        switch op {
        case .add: return .double(p + q)
        case .subtract: return .double(p - q)
        case .multiply: return .double(p * q)
        case .divide:
            if q == 0 { throw .divisionByZero(at: loc) }
            return .double(p / q)
        case .floorDivide:
            if q == 0 { throw .divisionByZero(at: loc) }
            return .double(Self.pythonFloatModulo(p, q).quotient)
        case .modulo:
            if q == 0 { throw .divisionByZero(at: loc) }
            return .double(Self.pythonFloatModulo(p, q).remainder)
        case .power:
            if p == 0 && q < 0 { throw .divisionByZero(at: loc) }
            if p < 0 && q != q.rounded() {
                throw .unsupported(construct: "complex result of ** on a negative float", at: loc)
            }
            return .double(pow(p, q))
        }
    }

    /// Python's float `divmod`: the remainder takes the divisor's sign.
    static func pythonFloatModulo(_ p: Double, _ q: Double) -> (quotient: Double, remainder: Double) {
        var r = p.truncatingRemainder(dividingBy: q)
        var d = (p - r) / q
        if r != 0 && ((r < 0) != (q < 0)) {
            r += q
            d -= 1
        }
        if r == 0 { r = q < 0 ? -0.0 : 0.0 }
        var floorDiv = d.rounded(.down)
        if d - floorDiv > 0.5 { floorDiv += 1 }
        if d == 0 { floorDiv = (p / q).sign == .minus ? -0.0 : 0.0 }
        return (floorDiv, r)
    }

    func compare(_ op: Expression.CompareOperator, _ a: Value, _ b: Value, at loc: JinjaLocation) throws(JinjaError) -> Bool {
        switch op {
        case .equal: return a.pythonEquals(b)
        case .notEqual: return !a.pythonEquals(b)
        case .contains: return try contains(b, a, at: loc)
        case .notContains: return !(try contains(b, a, at: loc))
        default:
            return try Value.compare(a, op, b, at: loc)
        }
    }

    /// Python's `needle in container`.
    func contains(_ container: Value, _ needle: Value, at loc: JinjaLocation) throws(JinjaError) -> Bool {
        switch container {
        case .string(let s):
            guard case .string(let n) = needle else {
                throw .typeMismatch(operation: "in", message: "'in <string>' requires string as left operand, not \(needle.typeName)", at: loc)
            }
            return n.text.isEmpty || s.text.unicodeScalars.firstRange(of: n.text.unicodeScalars) != nil
        case .dict(let d):
            switch needle {
            case .string(let k): return d[k] != nil
            case .dict:
                throw .typeMismatch(operation: "in", message: "unhashable type: 'dict'", at: loc)
            case .sequence(let s) where s.kind == .list:
                throw .typeMismatch(operation: "in", message: "unhashable type: 'list'", at: loc)
            default: return false
            }
        case .sequence(let s):
            return s.items.contains { $0.pythonEquals(needle) }
        case .undefined:
            return false
        default:
            throw .typeMismatch(operation: "in", message: "argument of type '\(container.typeName)' is not iterable", at: loc)
        }
    }
}
