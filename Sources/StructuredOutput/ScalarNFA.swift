/// A nondeterministic automaton over Unicode scalars (Thompson's construction): moves on a
/// set of scalars, ε moves, and the `^`/`$` assertions. It matches a `pattern` the way JSON
/// Schema does (a search: the match may start and end anywhere unless anchored), and it is
/// the input of `ScalarDFA`'s subset construction.
///
/// A thread is `state << 1 | pastEnd`: a thread that has passed a `$` may take no more
/// characters. `^` holds only before the first character.
struct ScalarNFA: Sendable {
    enum Move: Sendable, Hashable {
        case epsilon(Int32)
        case inputStart(Int32)
        case inputEnd(Int32)
        case scalars(ScalarSet, Int32)
    }

    private(set) var moves: [[Move]] = []
    var start: Int32 = 0
    var accept: Int32 = 0
    /// Patterns whose automaton needs more states are refused (e.g. `(a{1000}){1000}`).
    static let maxStates = 20_000

    init() {}

    /// The automaton of a `pattern`: strings that contain a match of `regex` somewhere.
    init(searching regex: RegexNode) throws(AutomatonError) {
        start = try state()
        var from = start
        if !Self.anchored(regex, atStart: true) { from = try star(of: .all, from: from) }
        var end = try compile(regex, from: from)
        if !Self.anchored(regex, atStart: false) { end = try star(of: .all, from: end) }
        accept = end
    }

    /// The automaton of exactly the strings `regex` matches from start to end.
    init(whole regex: RegexNode) throws(AutomatonError) {
        start = try state()
        accept = try compile(regex, from: start)
    }

    mutating func state() throws(AutomatonError) -> Int32 {
        guard moves.count < Self.maxStates else { throw .tooLarge }
        moves.append([])
        return Int32(moves.count - 1)
    }

    mutating func add(_ move: Move, from: Int32) { moves[Int(from)].append(move) }

    /// A loop of `set`, entered and left at a fresh state.
    private mutating func star(of set: ScalarSet, from: Int32) throws(AutomatonError) -> Int32 {
        let s = try state()
        add(.epsilon(s), from: from)
        add(.scalars(set, s), from: s)
        return s
    }

    /// Adds the fragment for `node` leaving `from`; returns its end state.
    mutating func compile(_ node: RegexNode, from: Int32) throws(AutomatonError) -> Int32 {
        switch node {
        case .set(let set):
            let to = try state()
            add(.scalars(set, to), from: from)
            return to
        case .sequence(let items):
            var current = from
            for item in items { current = try compile(item, from: current) }
            return current
        case .alternation(let alternatives):
            let end = try state()
            for alt in alternatives {
                let s = try state()
                add(.epsilon(s), from: from)
                add(.epsilon(end), from: try compile(alt, from: s))
            }
            return end
        case .repetition(let inner, let min, let max):
            var current = from
            for _ in 0..<min { current = try fresh(inner, from: current) }
            guard let max else {
                let loop = try state()
                add(.epsilon(loop), from: current)
                add(.epsilon(loop), from: try compile(inner, from: loop))
                return loop
            }
            // (a(a(a)?)?)?: each optional copy may be skipped to the end.
            let end = try state()
            add(.epsilon(end), from: current)
            for _ in min..<max {
                current = try fresh(inner, from: current)
                add(.epsilon(end), from: current)
            }
            return end
        case .inputStart:
            let to = try state()
            add(.inputStart(to), from: from)
            return to
        case .inputEnd:
            let to = try state()
            add(.inputEnd(to), from: from)
            return to
        }
    }

    /// `node` from a fresh state, so that loops inside it cannot reach back into `from`.
    private mutating func fresh(_ node: RegexNode, from: Int32) throws(AutomatonError) -> Int32 {
        let s = try state()
        add(.epsilon(s), from: from)
        return try compile(node, from: s)
    }

    /// Whether every match of `node` must begin at the input's start (or end at its end).
    static func anchored(_ node: RegexNode, atStart: Bool) -> Bool {
        switch node {
        case .inputStart: atStart
        case .inputEnd: !atStart
        case .sequence(let items): (atStart ? items.first : items.last).map { anchored($0, atStart: atStart) } ?? false
        case .alternation(let alternatives): alternatives.allSatisfy { anchored($0, atStart: atStart) }
        case .set, .repetition: false
        }
    }

    /// The threads reachable from `seeds` without reading a character, sorted.
    func closure(_ seeds: [Int32], atStart: Bool) -> [Int32] {
        var seen = Set(seeds)
        var stack = seeds
        while let t = stack.popLast() {
            for move in moves[Int(t >> 1)] {
                let next: Int32
                switch move {
                case .epsilon(let to): next = to << 1 | (t & 1)
                case .inputStart(let to):
                    guard atStart else { continue }
                    next = to << 1 | (t & 1)
                case .inputEnd(let to): next = to << 1 | 1
                case .scalars: continue
                }
                if seen.insert(next).inserted { stack.append(next) }
            }
        }
        return seen.sorted()
    }

    /// Whether `threads` includes the accepting state.
    func accepts(_ threads: [Int32]) -> Bool { threads.contains { $0 >> 1 == accept } }

    /// Whether the automaton accepts `text` (scalar by scalar).
    func matches(_ text: String) -> Bool {
        var threads = closure([start << 1], atStart: true)
        for scalar in text.unicodeScalars {
            var next: [Int32] = []
            for t in threads where t & 1 == 0 {
                for case .scalars(let set, let to) in moves[Int(t >> 1)] where set.contains(scalar.value) { next.append(to << 1) }
            }
            guard !next.isEmpty else { return false }
            threads = closure(next, atStart: false)
        }
        return accepts(threads)
    }
}

enum AutomatonError: Error, Equatable {
    /// More states than the limit.
    case tooLarge
}
