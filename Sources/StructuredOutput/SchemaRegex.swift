/// A regular expression in the ECMA-262 subset JSON Schema's `pattern` keyword uses, parsed.
///
/// Reads (ECMA-262 §22.2, with the Annex B leniency for a `{`, `}` or `]` that starts no
/// construct): alternation `|`; groups `(…)`, `(?:…)`, `(?<name>…)`; quantifiers `*` `+` `?`
/// `{n}` `{n,}` `{n,m}`, lazy or not (the same set of strings); `.`; classes `[…]` `[^…]` with
/// ranges; escapes `\d \D \w \W \s \S \t \n \v \f \r \0 \xHH \uHHHH \u{H…} \cX` and escaped
/// syntax characters; anchors `^` and `$` (no multiline flag: the input's start and end).
/// Refused, naming the construct: backreferences, lookaround, word boundaries and Unicode
/// property escapes, none of which a finite automaton over the characters alone can decide.
/// Characters are Unicode scalars (the `u` flag's reading).
indirect enum RegexNode: Sendable, Hashable {
    case set(ScalarSet)
    case sequence([RegexNode])
    case alternation([RegexNode])
    case repetition(RegexNode, min: Int, max: Int?)
    /// `^`: only where nothing has been read yet.
    case inputStart
    /// `$`: only where nothing more is read.
    case inputEnd

    static let empty = RegexNode.sequence([])

    static func literal(_ text: String) -> RegexNode {
        .sequence(text.unicodeScalars.map { .set(.scalar($0.value)) })
    }
}

enum RegexError: Error, Equatable {
    /// A construct outside the subset (named for the error message).
    case unsupported(String)
    case malformed(String)
}

/// A `pattern` string and its parse, kept together so a shape compares by its source.
package struct SchemaPattern: Sendable, Hashable {
    package let source: String
    let node: RegexNode

    init(_ source: String) throws(RegexError) {
        self.source = source
        node = try RegexParser.parse(source)
    }
}

struct RegexParser {
    private let s: [UInt32]
    private var i = 0
    private var depth = 0
    /// Repetition counts above this are refused: each repeat is a copy in the automaton.
    static let maxRepetition = 1000
    static let maxGroupDepth = 32

    init(_ pattern: String) { s = pattern.unicodeScalars.map(\.value) }

    static func parse(_ pattern: String) throws(RegexError) -> RegexNode {
        var parser = RegexParser(pattern)
        return try parser.parse()
    }

    private var peek: UInt32? { i < s.count ? s[i] : nil }
    private func peek(_ c: Character) -> Bool { peek == c.unicodeScalars.first!.value }

    mutating func parse() throws(RegexError) -> RegexNode {
        let node = try disjunction()
        guard i == s.count else { throw .malformed("unmatched ) at character \(i)") }
        return node
    }

    private mutating func disjunction() throws(RegexError) -> RegexNode {
        var alternatives = [try alternative()]
        while peek("|") {
            i += 1
            alternatives.append(try alternative())
        }
        return alternatives.count == 1 ? alternatives[0] : .alternation(alternatives)
    }

    private mutating func alternative() throws(RegexError) -> RegexNode {
        var items: [RegexNode] = []
        while let c = peek, c != 0x7C, c != 0x29 {  // | )
            items.append(try term())
        }
        return items.count == 1 ? items[0] : .sequence(items)
    }

    private mutating func term() throws(RegexError) -> RegexNode {
        if peek("^") || peek("$") {
            let anchor: RegexNode = peek("^") ? .inputStart : .inputEnd
            i += 1
            if try quantifierAhead() { throw .malformed("a quantifier after an anchor") }
            return anchor
        }
        let atom = try self.atom()
        return try quantified(atom)
    }

    /// Whether a quantifier starts at the current character (without consuming it).
    private mutating func quantifierAhead() throws(RegexError) -> Bool {
        if peek("*") || peek("+") || peek("?") { return true }
        let saved = i
        defer { i = saved }
        return try braces() != nil
    }

    /// `{n}`, `{n,}` or `{n,m}` at the current character, consumed; nil (nothing consumed)
    /// when the brace starts no quantifier (Annex B: it is then a literal `{`).
    private mutating func braces() throws(RegexError) -> (Int, Int?)? {
        guard peek("{") else { return nil }
        let saved = i
        i += 1
        func number(_ p: inout RegexParser) -> Int? {
            var value = 0, digits = 0
            while let c = p.peek, c >= 0x30 && c <= 0x39 {
                value = min(value * 10 + Int(c - 0x30), 1_000_000)
                digits += 1
                p.i += 1
            }
            return digits > 0 ? value : nil
        }
        guard let low = number(&self) else { i = saved; return nil }
        var high: Int? = low
        if peek(",") {
            i += 1
            high = number(&self)
        }
        guard peek("}") else { i = saved; return nil }
        i += 1
        if let high, high < low { throw .malformed("{\(low),\(high)}: the range is out of order") }
        if low > Self.maxRepetition || (high ?? 0) > Self.maxRepetition {
            throw .unsupported("a repetition count above \(Self.maxRepetition)")
        }
        return (low, high)
    }

    private mutating func quantified(_ atom: RegexNode) throws(RegexError) -> RegexNode {
        var bounds: (Int, Int?)
        if peek("*") { bounds = (0, nil); i += 1 }
        else if peek("+") { bounds = (1, nil); i += 1 }
        else if peek("?") { bounds = (0, 1); i += 1 }
        else if let b = try braces() { bounds = b }
        else { return atom }
        if peek("?") { i += 1 }  // lazy: the same strings match
        if try quantifierAhead() { throw .malformed("nothing to repeat at character \(i)") }
        return .repetition(atom, min: bounds.0, max: bounds.1)
    }

    private mutating func atom() throws(RegexError) -> RegexNode {
        guard let c = peek else { throw .malformed("an unexpected end") }
        switch c {
        case 0x28:  // (
            i += 1
            if peek("?") {
                i += 1
                if peek(":") {
                    i += 1
                } else if peek("=") || peek("!") {
                    throw .unsupported("lookahead")
                } else if peek("<") {
                    i += 1
                    if peek("=") || peek("!") { throw .unsupported("lookbehind") }
                    while let n = peek, n != 0x3E { i += 1 }  // the group's name, up to >
                    guard peek(">") else { throw .malformed("an unterminated group name") }
                    i += 1
                } else {
                    throw .malformed("(? followed by an unknown character")
                }
            }
            depth += 1
            guard depth <= Self.maxGroupDepth else { throw .unsupported("groups nested more than \(Self.maxGroupDepth) deep") }
            let inner = try disjunction()
            depth -= 1
            guard peek(")") else { throw .malformed("an unterminated group") }
            i += 1
            return inner
        case 0x2E:  // .
            i += 1
            return .set(.dot)
        case 0x5B:  // [
            i += 1
            return .set(try characterClass())
        case 0x5C:  // backslash
            i += 1
            return .set(try escape(inClass: false))
        case 0x2A, 0x2B, 0x3F:  // * + ?
            throw .malformed("nothing to repeat at character \(i)")
        case 0x7B:  // {
            if try quantifierAhead() { throw .malformed("nothing to repeat at character \(i)") }
            i += 1
            return .set(.scalar(c))
        default:
            i += 1
            return .set(.scalar(c))
        }
    }

    private mutating func characterClass() throws(RegexError) -> ScalarSet {
        var negated = false
        if peek("^") {
            negated = true
            i += 1
        }
        var set = ScalarSet.empty
        while true {
            guard let c = peek else { throw .malformed("an unterminated character class") }
            if c == 0x5D { i += 1; break }  // ]
            let first = try classAtom()
            if peek("-"), i + 1 < s.count, s[i + 1] != 0x5D {
                i += 1
                let second = try classAtom()
                if case .single(let a) = first, case .single(let b) = second {
                    guard a <= b else { throw .malformed("a class range out of order") }
                    set = set.union(ScalarSet([a...b]))
                } else {
                    // Annex B: a class escape beside `-` makes the `-` literal.
                    set = set.union(first.set).union(second.set).union(.scalar(0x2D))
                }
            } else {
                set = set.union(first.set)
            }
        }
        return negated ? set.complement : set
    }

    private enum ClassAtom {
        case single(UInt32)
        case multiple(ScalarSet)
        var set: ScalarSet {
            switch self {
            case .single(let v): .scalar(v)
            case .multiple(let s): s
            }
        }
    }

    private mutating func classAtom() throws(RegexError) -> ClassAtom {
        let c = s[i]
        i += 1
        guard c == 0x5C else { return .single(c) }
        let set = try escape(inClass: true)
        if set.ranges.count == 1, set.ranges[0].lowerBound == set.ranges[0].upperBound { return .single(set.ranges[0].lowerBound) }
        return .multiple(set)
    }

    /// The escape after a backslash.
    private mutating func escape(inClass: Bool) throws(RegexError) -> ScalarSet {
        guard let c = peek else { throw .malformed("a backslash at the end") }
        i += 1
        switch Character(Unicode.Scalar(c) ?? "?") {
        case "d": return .digits
        case "D": return ScalarSet.digits.complement
        case "w": return .word
        case "W": return ScalarSet.word.complement
        case "s": return .space
        case "S": return ScalarSet.space.complement
        case "t": return .scalar(0x09)
        case "n": return .scalar(0x0A)
        case "v": return .scalar(0x0B)
        case "f": return .scalar(0x0C)
        case "r": return .scalar(0x0D)
        case "b":
            if inClass { return .scalar(0x08) }
            throw .unsupported("a word boundary (\\b)")
        case "B": throw .unsupported("a word boundary (\\B)")
        case "0":
            if let n = peek, n >= 0x30 && n <= 0x39 { throw .unsupported("an octal escape") }
            return .scalar(0)
        case "1", "2", "3", "4", "5", "6", "7", "8", "9": throw .unsupported("a backreference")
        case "k": throw .unsupported("a named backreference")
        case "p", "P": throw .unsupported("a Unicode property escape")
        case "c":
            guard let l = peek, (0x41...0x5A).contains(l) || (0x61...0x7A).contains(l) else { throw .malformed("\\c without a letter") }
            i += 1
            return .scalar(l % 32)
        case "x":
            return .scalar(try hex(count: 2))
        case "u":
            let v: UInt32
            if peek("{") {
                i += 1
                var value: UInt32 = 0, digits = 0
                while let h = peek, let d = Self.hexValue(h) {
                    value = min(value * 16 + d, 0x110000)
                    digits += 1
                    i += 1
                }
                guard digits > 0, peek("}"), value <= ScalarSet.maxScalar else { throw .malformed("a bad \\u{…} escape") }
                i += 1
                v = value
            } else {
                v = try hex(count: 4)
            }
            if ScalarSet.surrogates.contains(v) {
                // A high surrogate escape followed by a low one spells one character.
                guard v < 0xDC00, i + 1 < s.count, s[i] == 0x5C, s[i + 1] == 0x75 else { throw .unsupported("a lone surrogate") }
                i += 2
                let low = try hex(count: 4)
                guard (0xDC00...0xDFFF).contains(low) else { throw .unsupported("a lone surrogate") }
                return .scalar(0x10000 + ((v - 0xD800) << 10) + (low - 0xDC00))
            }
            return .scalar(v)
        case "^", "$", "\\", ".", "*", "+", "?", "(", ")", "[", "]", "{", "}", "|", "/", "-":
            return .scalar(c)
        default:
            throw .unsupported("the escape \\\(Character(Unicode.Scalar(c) ?? "?"))")
        }
    }

    private mutating func hex(count: Int) throws(RegexError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<count {
            guard let h = peek, let d = Self.hexValue(h) else { throw .malformed("a bad hexadecimal escape") }
            value = value * 16 + d
            i += 1
        }
        return value
    }

    private static func hexValue(_ c: UInt32) -> UInt32? {
        switch c {
        case 0x30...0x39: c - 0x30
        case 0x41...0x46: c - 0x41 + 10
        case 0x61...0x66: c - 0x61 + 10
        default: nil
        }
    }
}
