/// Advances a `GrammarState` one byte at a time over a grammar's tables. Built for the token
/// trie walk: no allocation, no reference counting, a state is a plain value.
struct GrammarStepper {
    typealias Node = Grammar.Node
    let nodes: UnsafeBufferPointer<Node>
    let edges: UnsafeBufferPointer<Grammar.Edge>
    let triggerTable: UnsafeBufferPointer<UInt8>
    let triggerLength: Int
    let maxWhitespace: UInt8

    @inline(__always)
    func enter(_ s: inout GrammarState, _ target: Int32, phase: UInt8 = 0) {
        let n = nodes[Int(target)]
        s.node = target
        s.phase = phase
        s.length = 0
        s.whitespace = 0
        if n.flags.contains(.resetCount) { s.counts[Int(n.slot)] = 0 }
        if n.flags.contains(.countItem) {
            let c = s.counts[Int(n.slot)]
            s.counts[Int(n.slot)] = c == .max ? c : c + 1
        }
    }

    /// Consumes `b`; false (state unspecified) when no document of the grammar continues so.
    @inline(__always)
    func step(_ s: inout GrammarState, _ b: UInt8) -> Bool {
        while true {
            let n = nodes[Int(s.node)]
            switch n.kind {
            case .branch:
                if b == 0x20 || b == 0x0A, n.flags.contains(.whitespace) {
                    guard s.whitespace < maxWhitespace else { return false }
                    s.whitespace += 1
                    return true
                }
                var e = Int(n.edgeStart)
                let end = e + Int(n.edgeCount)
                while e < end {
                    let edge = edges[e]
                    if b >= edge.low && b <= edge.high {
                        switch edge.condition {
                        case .none: break
                        case .belowMax: if s.counts[Int(n.slot)] >= n.high { return false }
                        case .atLeastMin: if s.counts[Int(n.slot)] < n.low { return false }
                        }
                        enter(&s, edge.target, phase: edge.phase)
                        return true
                    }
                    e += 1
                }
                if n.delegate >= 0 {
                    s.node = n.delegate
                    continue
                }
                guard n.flags.contains(.terminal) else { return false }
                enter(&s, n.next)
            case .string:
                return stepString(&s, b, n)
            case .number, .integer:
                switch stepNumber(&s, b, n) {
                case .some(true): return true
                case .some(false): return false
                case .none: enter(&s, n.next)  // the number ended; `b` belongs to what follows
                }
            case .freeText:
                let m = Int(triggerTable[Int(s.length) * 256 + Int(b)])
                if m == triggerLength { enter(&s, n.next) } else { s.length = UInt16(m) }
                return true
            case .done:
                return false
            }
        }
    }

    /// Phases: 0 body; 1 after `\`; 2 first hex digit; 3 second; 4 second after `d` (no
    /// surrogates: 0–7 only); 5 third; 6 fourth; 7 one UTF-8 continuation byte left; 8–10 two
    /// left (next byte 80–BF, A0–BF after E0, 80–9F after ED); 11–13 three left (90–BF after F0,
    /// 80–BF, 80–8F after F4).
    @inline(__always)
    private func stepString(_ s: inout GrammarState, _ b: UInt8, _ n: Node) -> Bool {
        switch s.phase {
        case 0:
            if b == UInt8(ascii: "\"") {
                guard s.length >= n.low else { return false }
                enter(&s, n.next)
                return true
            }
            guard b >= 0x20, s.length < n.high else { return false }
            let phase: UInt8
            if b == UInt8(ascii: "\\") {
                phase = 1
            } else {
                guard let p = Self.plainStringPhase(0, b) else { return false }
                phase = p
            }
            s.length += 1
            s.phase = phase
            return true
        case 1:
            switch b {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                 UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                s.phase = 0
            case UInt8(ascii: "u"): s.phase = 2
            default: return false
            }
            return true
        case 2...6:
            let lower = b | 0x20
            let isHex = (b >= 0x30 && b <= 0x39) || (lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "f"))
            guard isHex else { return false }
            switch s.phase {
            case 2: s.phase = lower == UInt8(ascii: "d") ? 4 : 3
            case 4:
                guard b >= 0x30 && b <= 0x37 else { return false }
                s.phase = 5
            case 6: s.phase = 0
            default: s.phase += s.phase == 3 ? 2 : 1
            }
            return true
        default:
            guard let p = Self.plainStringPhase(s.phase, b) else { return false }
            s.phase = p
            return true
        }
    }

    /// The string phase after `b` for string content without escapes: from phase 0 (between
    /// characters) or a UTF-8 continuation phase (7–13); nil when `b` cannot come next (a quote,
    /// backslash or control byte between characters, or a byte that breaks UTF-8).
    @inline(__always)
    static func plainStringPhase(_ phase: UInt8, _ b: UInt8) -> UInt8? {
        switch phase {
        case 0:
            switch b {
            case 0x20..<0x80: return b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") ? nil : 0
            case 0xC2...0xDF: return 7
            case 0xE0: return 9
            case 0xED: return 10
            case 0xE1...0xEF: return 8
            case 0xF0: return 11
            case 0xF1...0xF3: return 12
            case 0xF4: return 13
            default: return nil
            }
        case 7: return b >= 0x80 && b <= 0xBF ? 0 : nil
        case 8: return b >= 0x80 && b <= 0xBF ? 7 : nil
        case 9: return b >= 0xA0 && b <= 0xBF ? 7 : nil
        case 10: return b >= 0x80 && b <= 0x9F ? 7 : nil
        case 11: return b >= 0x90 && b <= 0xBF ? 8 : nil
        case 12: return b >= 0x80 && b <= 0xBF ? 8 : nil
        case 13: return b >= 0x80 && b <= 0x8F ? 8 : nil
        default: return nil
        }
    }

    /// The bit of `TokenTrie.stringSafe` for a string phase (0 and 7–13), or 0 for escape phases.
    @inline(__always)
    static func plainPhaseBit(_ phase: UInt8) -> UInt8 {
        phase == 0 ? 1 : phase >= 7 && phase <= 13 ? 1 << (phase - 6) : 0
    }

    /// true: consumed; false: dead; nil: the number is complete and `b` is not part of it.
    /// Phases: 1 after `-`; 2 after a leading `0`; 3 integer digits (`length` counts those after
    /// the first); 4 after `.`; 5 fraction digits.
    @inline(__always)
    private func stepNumber(_ s: inout GrammarState, _ b: UInt8, _ n: Node) -> Bool? {
        let digit = b >= 0x30 && b <= 0x39
        let dot = b == UInt8(ascii: ".") && n.kind == .number
        switch s.phase {
        case 1:
            guard digit else { return false }
            s.phase = b == 0x30 ? 2 : 3
            return true
        case 2:
            if digit { return false }
            if dot { s.phase = 4; return true }
            return nil
        case 3:
            if digit {
                guard s.length + 1 < n.high else { return false }
                s.length += 1
                return true
            }
            if dot { s.phase = 4; return true }
            return nil
        case 4:
            guard digit else { return false }
            s.phase = 5
            s.length = 1
            return true
        default:
            if digit {
                guard s.length < n.low else { return false }
                s.length += 1
                return true
            }
            return nil
        }
    }
}
