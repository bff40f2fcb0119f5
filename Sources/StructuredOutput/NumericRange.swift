/// Bounds on a number or an integer (`minimum`, `maximum`, `exclusiveMinimum`,
/// `exclusiveMaximum`). For integers the reader folds exclusivity and fractions away, so both
/// bounds are inclusive whole numbers.
package struct NumericRange: Sendable, Hashable {
    package struct Bound: Sendable, Hashable {
        package var value: Double
        package var exclusive: Bool
        package init(_ value: Double, exclusive: Bool = false) {
            self.value = value
            self.exclusive = exclusive
        }
    }

    package var integer: Bool
    package var lower: Bound?
    package var upper: Bound?

    package init(integer: Bool, lower: Bound?, upper: Bound?) {
        self.integer = integer
        self.lower = lower
        self.upper = upper
    }

    /// Whether `x` lies within the bounds (and is whole, for an integer range).
    package func contains(_ x: Double) -> Bool {
        if integer && x.rounded() != x { return false }
        if let l = lower, l.exclusive ? !(x > l.value) : !(x >= l.value) { return false }
        if let u = upper, u.exclusive ? !(x < u.value) : !(x <= u.value) { return false }
        return true
    }
}

/// A non-negative decimal as digit lists: `intDigits` without leading zeros (at least one
/// digit: "0" for values below 1), `fracDigits` without trailing zeros.
struct DecimalDigits: Equatable {
    var intDigits: [UInt8]
    var fracDigits: [UInt8]

    /// The digits of `abs(x)` as Swift prints it: the shortest decimal that reads back as `x`,
    /// which is the number as the schema's author wrote it whenever it fits a Double.
    init(_ x: Double) {
        let text = "\(abs(x))"
        let parts = text.split(separator: "e", maxSplits: 1)
        let exponent = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
        let mantissa = parts[0].split(separator: ".", omittingEmptySubsequences: false)
        let whole = Array(mantissa[0].utf8).map { $0 - 0x30 }
        let fraction = mantissa.count > 1 ? Array(mantissa[1].utf8).map { $0 - 0x30 } : []
        var digits = whole + fraction
        var point = whole.count + exponent
        if point < 0 {
            digits = [UInt8](repeating: 0, count: -point) + digits
            point = 0
        }
        if point > digits.count { digits += [UInt8](repeating: 0, count: point - digits.count) }
        var i = Array(digits[0..<point])
        var f = Array(digits[point...])
        while i.count > 1 && i[0] == 0 { i.removeFirst() }
        if i.isEmpty { i = [0] }
        while f.last == 0 { f.removeLast() }
        intDigits = i
        fracDigits = f
    }
}

extension ScalarNFA {
    /// JSON numbers (no exponent, no leading zeros, no `-0`) within `range`, with at most
    /// `maxIntegerDigits` digits before the point and `maxFractionDigits` after it (none for an
    /// integer range), and at most 15 digits in all so that every number written converts to
    /// exactly one Double and compares with the bounds as its decimal does.
    ///
    /// Built as a union over the integer part's length: for a given length, each bound is
    /// compared digit by digit, aligned at the point, as the digits are read (status less,
    /// equal or greater; a number already below the lower bound or above the upper is dead).
    static func decimal(_ range: NumericRange, maxIntegerDigits: Int, maxFractionDigits: Int) throws(AutomatonError) -> ScalarNFA {
        var nfa = ScalarNFA()
        nfa.start = try nfa.state()
        nfa.accept = try nfa.state()
        let zero = NumericRange.Bound(0)
        let integerDigits = max(1, min(maxIntegerDigits, 15))
        let fractionDigits = range.integer ? 0 : max(0, min(maxFractionDigits, 14))
        // x ≥ 0
        if range.upper.map({ $0.value > 0 || ($0.value == 0 && !$0.exclusive) }) ?? true {
            let lower = range.lower.flatMap { $0.value >= 0 ? $0 : nil }
            var side = DecimalSide(lower: lower.map { (DecimalDigits($0.value), $0.exclusive) },
                                   upper: range.upper.map { (DecimalDigits($0.value), $0.exclusive) },
                                   integerDigits: integerDigits, fractionDigits: fractionDigits)
            try side.add(to: &nfa, from: nfa.start)
        }
        // x < 0, read as "-" and a magnitude -x > 0.
        if range.lower.map({ $0.value < 0 }) ?? true {
            let sign = try nfa.state()
            nfa.add(.scalars(.scalar(0x2D), sign), from: nfa.start)
            let nearest = range.upper.flatMap { $0.value < 0 ? $0 : nil } ?? NumericRange.Bound(zero.value, exclusive: true)
            var side = DecimalSide(lower: (DecimalDigits(nearest.value), nearest.exclusive),
                                   upper: range.lower.map { (DecimalDigits($0.value), $0.exclusive) },
                                   integerDigits: integerDigits, fractionDigits: fractionDigits)
            try side.add(to: &nfa, from: sign)
        }
        return nfa
    }
}

/// The magnitudes of one sign within two bounds, added to an automaton.
private struct DecimalSide {
    enum Status: UInt8 { case less, equal, greater }
    struct Key: Hashable {
        var length: Int
        var fraction: Bool
        var position: Int
        var low: Status
        var high: Status
    }

    let lower: (DecimalDigits, Bool)?
    let upper: (DecimalDigits, Bool)?
    let integerDigits: Int
    let fractionDigits: Int
    var states: [Key: Int32] = [:]

    init(lower: (DecimalDigits, Bool)?, upper: (DecimalDigits, Bool)?, integerDigits: Int, fractionDigits: Int) {
        self.lower = lower
        self.upper = upper
        self.integerDigits = integerDigits
        self.fractionDigits = fractionDigits
    }

    mutating func add(to nfa: inout ScalarNFA, from: Int32) throws(AutomatonError) {
        for length in 1...integerDigits {
            func initial(_ bound: (DecimalDigits, Bool)?) -> Status {
                guard let b = bound?.0.intDigits.count else { return .equal }
                return length < b ? .less : length > b ? .greater : .equal
            }
            let key = Key(length: length, fraction: false, position: 0, low: initial(lower), high: initial(upper))
            if lower != nil && key.low == .less || upper != nil && key.high == .greater { continue }
            nfa.add(.epsilon(try state(key, &nfa)), from: from)
        }
    }

    /// The digit of a bound at a position of the candidate (0 past the bound's digits).
    private func digit(_ bound: DecimalDigits, _ key: Key) -> UInt8 {
        let list = key.fraction ? bound.fracDigits : bound.intDigits
        return key.position < list.count ? list[key.position] : 0
    }

    private func acceptable(_ key: Key) -> Bool {
        // After the digits read, the bound still has nonzero digits iff its fraction goes on.
        func rest(_ b: DecimalDigits) -> Bool { key.fraction ? key.position < b.fracDigits.count : !b.fracDigits.isEmpty }
        if let (b, exclusive) = lower {
            switch key.low {
            case .less: return false
            case .equal: if rest(b) || exclusive { return false }
            case .greater: break
            }
        }
        if let (b, exclusive) = upper {
            switch key.high {
            case .greater: return false
            case .equal: if !rest(b) && exclusive { return false }
            case .less: break
            }
        }
        return true
    }

    private mutating func state(_ key: Key, _ nfa: inout ScalarNFA) throws(AutomatonError) -> Int32 {
        if let s = states[key] { return s }
        let s = try nfa.state()
        states[key] = s
        let complete = key.fraction ? key.position >= 1 : key.position == key.length
        if complete && acceptable(key) { nfa.add(.epsilon(nfa.accept), from: s) }
        let fractionLimit = min(fractionDigits, 15 - key.length)
        if !key.fraction && key.position == key.length {
            if fractionLimit > 0 {
                var next = key
                next.fraction = true
                next.position = 0
                nfa.add(.scalars(.scalar(0x2E), try state(next, &nfa)), from: s)
            }
            return s
        }
        if key.fraction && key.position >= fractionLimit { return s }
        let first: UInt8 = !key.fraction && key.position == 0 && key.length > 1 ? 1 : 0
        var targets: [(UInt8, Int32)] = []
        for d in first...9 {
            var next = key
            next.position += 1
            if let (b, _) = lower, key.low == .equal {
                let bd = digit(b, key)
                next.low = d < bd ? .less : d > bd ? .greater : .equal
            }
            if let (b, _) = upper, key.high == .equal {
                let bd = digit(b, key)
                next.high = d < bd ? .less : d > bd ? .greater : .equal
            }
            if lower != nil && next.low == .less || upper != nil && next.high == .greater { continue }
            targets.append((d, try state(next, &nfa)))
        }
        for (d, target) in targets { nfa.add(.scalars(.scalar(0x30 + UInt32(d)), target), from: s) }
        return s
    }
}
