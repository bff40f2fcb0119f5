/// A deterministic automaton over Unicode scalars whose accepting states carry a label (which
/// value was completed: a key of an object, or just "the string"). Built by the subset
/// construction over the intersection of several `ScalarNFA`s, multiplied by a character count
/// when lengths are bounded, then trimmed so that every state kept can still reach an accepting
/// one: the grammar compiled from it never walks into a dead end.
struct ScalarDFA: Sendable {
    struct Transition: Sendable, Hashable {
        var low: UInt32
        var high: UInt32
        var target: Int32
    }

    /// Per state: sorted, disjoint transitions.
    var transitions: [[Transition]] = []
    /// Per state: the label of an accepting state, -1 for the others.
    var labels: [Int32] = []
    var start: Int32 = 0

    /// Bounds on the number of characters (`minLength`/`maxLength`).
    struct Length: Sendable, Hashable {
        var min: Int
        var max: Int?
    }

    /// Threads visited across the whole construction before it gives up: a bound on the time
    /// a hostile pattern can take, beside the bound on states (`(a?){1000}` has few states,
    /// each of a thousand threads).
    static let maxWork = 4_000_000

    /// Strings every automaton accepts; label 0.
    static func intersection(_ automata: [ScalarNFA], maxStates: Int) throws(AutomatonError) -> ScalarDFA {
        struct Key: Hashable {
            var threads: [[Int32]]
        }
        var dfa = ScalarDFA()
        var index: [Key: Int32] = [:]
        var queue: [Key] = []
        func intern(_ key: Key) throws(AutomatonError) -> Int32 {
            if let i = index[key] { return i }
            guard dfa.transitions.count < maxStates else { throw .tooLarge }
            let i = Int32(dfa.transitions.count)
            index[key] = i
            dfa.transitions.append([])
            let accepting = zip(automata, key.threads).allSatisfy { $0.accepts($1) }
            dfa.labels.append(accepting ? 0 : -1)
            queue.append(key)
            return i
        }
        dfa.start = try intern(Key(threads: automata.map { $0.closure([$0.start << 1], atStart: true) }))
        var next = 0
        var work = 0
        while next < queue.count {
            let key = queue[next]
            work += key.threads.reduce(0) { $0 + $1.count }
            guard work <= maxWork else { throw .tooLarge }
            let from = next
            next += 1
            // Elementary intervals: between consecutive boundaries of every live move's ranges.
            var bounds: [UInt32] = []
            for (a, threads) in zip(automata, key.threads) {
                for t in threads where t & 1 == 0 {
                    for case .scalars(let set, _) in a.moves[Int(t >> 1)] {
                        for r in set.ranges {
                            bounds.append(r.lowerBound)
                            bounds.append(r.upperBound + 1)
                        }
                    }
                }
            }
            bounds = Array(Set(bounds)).sorted()
            var out: [Transition] = []
            for k in 0..<Swift.max(bounds.count - 1, 0) {
                let low = bounds[k], high = bounds[k + 1] - 1
                var targets: [[Int32]] = []
                for (a, threads) in zip(automata, key.threads) {
                    var seeds: [Int32] = []
                    for t in threads where t & 1 == 0 {
                        for case .scalars(let set, let to) in a.moves[Int(t >> 1)] where set.contains(low) { seeds.append(to << 1) }
                    }
                    if seeds.isEmpty { break }
                    targets.append(a.closure(seeds, atStart: false))
                }
                guard targets.count == automata.count else { continue }
                work += targets.reduce(0) { $0 + $1.count }
                let target = try intern(Key(threads: targets))
                if let last = out.last, last.target == target, last.high + 1 == low {
                    out[out.count - 1].high = high
                } else {
                    out.append(Transition(low: low, high: high, target: target))
                }
            }
            dfa.transitions[from] = out
        }
        return dfa
    }

    /// The strings of this automaton within `length`: its states paired with a count of the
    /// characters read (up to `max`, or saturating at `min` when there is no `max`). Built from
    /// the deterministic automaton, so a long bound costs a copy per count, not a subset
    /// construction per count.
    func bounded(by length: Length, maxStates: Int) throws(AutomatonError) -> ScalarDFA {
        let counts = (length.max ?? length.min) + 1
        var out = ScalarDFA()
        var index: [Int: Int32] = [:]
        var queue: [(state: Int32, count: Int)] = []
        func intern(_ state: Int32, _ count: Int) throws(AutomatonError) -> Int32 {
            let key = Int(state) * counts + count
            if let i = index[key] { return i }
            guard out.transitions.count < maxStates else { throw .tooLarge }
            let i = Int32(out.transitions.count)
            index[key] = i
            out.transitions.append([])
            out.labels.append(count >= length.min ? labels[Int(state)] : -1)
            queue.append((state, count))
            return i
        }
        out.start = try intern(start, 0)
        var next = 0
        while next < queue.count {
            let (state, count) = queue[next]
            let from = next
            next += 1
            if let max = length.max, count >= max { continue }
            let after = length.max == nil ? Swift.min(count + 1, length.min) : count + 1
            var list: [Transition] = []
            for t in transitions[Int(state)] { list.append(Transition(low: t.low, high: t.high, target: try intern(t.target, after))) }
            out.transitions[from] = list
        }
        return out
    }

    /// Removes the transitions into states that cannot reach an accepting state; false when
    /// the start state is one of them (no string is accepted).
    mutating func trim() -> Bool {
        let live = liveStates()
        for s in transitions.indices { transitions[s].removeAll { !live[Int($0.target)] } }
        return live[Int(start)]
    }

    /// States from which an accepting state can be reached.
    func liveStates() -> [Bool] {
        var reverse = [[Int32]](repeating: [], count: transitions.count)
        for (s, list) in transitions.enumerated() {
            for t in list { reverse[Int(t.target)].append(Int32(s)) }
        }
        var live = labels.map { $0 >= 0 }
        var stack = live.indices.filter { live[$0] }.map(Int32.init)
        while let s = stack.popLast() {
            for p in reverse[Int(s)] where !live[Int(p)] {
                live[Int(p)] = true
                stack.append(p)
            }
        }
        return live
    }

    /// States reachable from the start, in breadth-first order.
    func reachable() -> [Int32] {
        var seen = [Bool](repeating: false, count: transitions.count)
        seen[Int(start)] = true
        var order = [start]
        var i = 0
        while i < order.count {
            for t in transitions[Int(order[i])] where !seen[Int(t.target)] {
                seen[Int(t.target)] = true
                order.append(t.target)
            }
            i += 1
        }
        return order
    }

    /// The fewest and most characters of an accepted string (most: nil when unbounded, i.e.
    /// a cycle is reachable). Call on a trimmed automaton.
    func lengthRange() -> (shortest: Int, longest: Int?) {
        let order = reachable()
        var depth = [Int](repeating: -1, count: transitions.count)
        depth[Int(start)] = 0
        var shortest = Int.max
        for s in order {
            if labels[Int(s)] >= 0 { shortest = min(shortest, depth[Int(s)]) }
            for t in transitions[Int(s)] where depth[Int(t.target)] < 0 { depth[Int(t.target)] = depth[Int(s)] + 1 }
        }
        // Longest path by depth-first search with a cycle check (0 new, 1 open, 2 done).
        var mark = [UInt8](repeating: 0, count: transitions.count)
        var longest = [Int](repeating: 0, count: transitions.count)
        var stack: [(Int32, Int)] = [(start, 0)]
        mark[Int(start)] = 1
        while let (s, k) = stack.last {
            let list = transitions[Int(s)]
            if k < list.count {
                stack[stack.count - 1].1 += 1
                let t = list[k].target
                switch mark[Int(t)] {
                case 0:
                    mark[Int(t)] = 1
                    stack.append((t, 0))
                case 1: return (shortest, nil)
                default: break
                }
            } else {
                var best = labels[Int(s)] >= 0 ? 0 : Int.min
                for t in list where longest[Int(t.target)] != Int.min { best = max(best, longest[Int(t.target)] + 1) }
                longest[Int(s)] = best
                mark[Int(s)] = 2
                stack.removeLast()
            }
        }
        return (shortest, longest[Int(start)])
    }
}
