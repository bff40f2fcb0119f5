/// Python's `==` and ordering over `Value`.
extension Value {
    /// Python `==`: numbers by value across `bool`/`int`/`float`, strings by scalars, lists and
    /// tuples element-wise (a list never equals a tuple), dicts regardless of order,
    /// undefined equals undefined, namespaces by identity.
    func pythonEquals(_ other: Value) -> Bool {
        if let a = number, let b = other.number { return Self.numbersEqual(a, b) }
        switch (self, other) {
        case (.undefined, .undefined), (.none, .none): return true
        case (.string(let a), .string(let b)): return a == b
        case (.sequence(let a), .sequence(let b)):
            guard a.kind == b.kind, a.hasLength, a.items.count == b.items.count else { return false }
            return zip(a.items, b.items).allSatisfy { $0.pythonEquals($1) }
        case (.dict(let a), .dict(let b)):
            guard a.count == b.count else { return false }
            return a.entries.allSatisfy { key, value in b[key].map { value.pythonEquals($0) } ?? false }
        case (.namespace(let a), .namespace(let b)): return a === b
        case (.loop(let a), .loop(let b)): return a === b
        default: return false
        }
    }

    static func numbersEqual(_ a: Number, _ b: Number) -> Bool {
        switch (a, b) {
        case (.int(let x), .int(let y)): return x == y
        case (.double(let x), .double(let y)): return x == y
        case (.int(let i), .double(let d)), (.double(let d), .int(let i)):
            // Exact, like Python: an int equals a float only if the float is that integer.
            guard d.isFinite, d.rounded(.towardZero) == d, let j = Int(exactly: d) else { return false }
            return i == j
        }
    }

    /// Python's ordering of `a` and `b` as -1, 0, 1 (NaN compares as unordered, which only
    /// `<`-style operators see as false). Lists and tuples compare at their first unequal
    /// items, so the error names that pair: undefined operands fail like jinja2's
    /// `Undefined`, other unorderable types with Python's `TypeError`.
    static func ordering(_ a: Value, _ b: Value, _ op: Expression.CompareOperator, at loc: JinjaLocation) throws(JinjaError) -> Int? {
        if case .undefined(let u) = a { throw u.error(at: loc) }
        if case .undefined(let u) = b { throw u.error(at: loc) }
        if case .sequence(let s) = a, case .sequence(let t) = b, s.kind == t.kind, s.kind == .list || s.kind == .tuple {
            for (x, y) in zip(s.items, t.items) where !x.pythonEquals(y) {
                return try ordering(x, y, op, at: loc)
            }
            return s.items.count < t.items.count ? -1 : s.items.count == t.items.count ? 0 : 1
        }
        if a.number != nil && b.number != nil { return order(a, b) }
        guard let o = order(a, b) else { throw comparisonError(op, a, b, at: loc) }
        return o
    }

    /// Python's `a op b` for the ordering operators.
    static func compare(_ a: Value, _ op: Expression.CompareOperator, _ b: Value, at loc: JinjaLocation) throws(JinjaError) -> Bool {
        guard let order = try ordering(a, b, op, at: loc) else { return false }
        switch op {
        case .less: return order < 0
        case .lessOrEqual: return order <= 0
        case .greater: return order > 0
        case .greaterOrEqual: return order >= 0
        default: return false
        }
    }

    /// -1, 0, 1, or nil when the values are unordered (NaN, or types Python cannot compare).
    static func order(_ a: Value, _ b: Value) -> Int? {
        if let x = a.number, let y = b.number {
            if case .int(let i) = x, case .int(let j) = y { return i < j ? -1 : i == j ? 0 : 1 }
            let p = x.asDouble, q = y.asDouble
            if p.isNaN || q.isNaN { return nil }
            return p < q ? -1 : p == q ? 0 : 1
        }
        switch (a, b) {
        case (.string(let s), .string(let t)):
            return compareScalars(s.text, t.text)
        case (.sequence(let s), .sequence(let t)) where s.kind == t.kind && (s.kind == .list || s.kind == .tuple):
            for (x, y) in zip(s.items, t.items) where !x.pythonEquals(y) {
                return order(x, y)
            }
            return s.items.count < t.items.count ? -1 : s.items.count == t.items.count ? 0 : 1
        default:
            return nil
        }
    }

    /// Code point order, as Python compares strings (Swift's `<` on `String` normalises).
    static func compareScalars(_ a: String, _ b: String) -> Int {
        var i = a.unicodeScalars.makeIterator(), j = b.unicodeScalars.makeIterator()
        while true {
            switch (i.next(), j.next()) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case (let x?, let y?): if x != y { return x.value < y.value ? -1 : 1 }
            }
        }
    }

    /// The `TypeError` Python raises for an unsupported comparison.
    static func comparisonError(_ op: Expression.CompareOperator, _ a: Value, _ b: Value, at location: JinjaLocation) -> JinjaError {
        .typeMismatch(operation: "comparison",
                      message: "'\(op.rawValue)' not supported between instances of '\(a.typeName)' and '\(b.typeName)'",
                      at: location)
    }
}
