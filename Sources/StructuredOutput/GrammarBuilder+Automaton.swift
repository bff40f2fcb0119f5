/// Compiles a `ScalarDFA` into grammar nodes: each character transition becomes the bytes
/// that spell it (inside a JSON string: UTF-8, with `"`, `\` and control characters escaped;
/// in a number: ASCII), sequences sharing a prefix share nodes, and every node's cost is the
/// fewest bytes to its exit, found by Dijkstra's algorithm backwards from the completions.
///
/// Inside a string only one spelling of each character is generated (raw UTF-8; `\"`, `\\`,
/// `\b \f \n \r \t`; `\u00XX` for other control characters), which JSON reads back as the same
/// string: the grammar writes a subset of the encodings, never a different value.
extension GrammarBuilder {
    enum Spelling {
        /// Between the quotes of a JSON string; an accepting state may close the string.
        case jsonString
        /// Bare ASCII (a number); an accepting state may end where the next byte is not its own.
        case ascii
    }

    /// Where an accepting state's label leads, and the fewest bytes from there to the exit.
    struct Completion {
        var target: Int32
        var cost: Int
    }

    private enum Target: Hashable {
        case local(Int)
        case completion(Int32)
    }

    private struct ByteRun: Hashable {
        var ranges: [ClosedRange<UInt8>]
        var target: Target

        /// A total order, so that equal sets of runs memoise to one node.
        var sortKey: [Int] {
            var key = ranges.flatMap { [Int($0.lowerBound), Int($0.upperBound)] }
            switch target {
            case .local(let n): key += [0, n]
            case .completion(let label): key += [1, Int(label)]
            }
            return key
        }
    }

    private struct ByteGraph {
        var edges: [[(low: UInt8, high: UInt8, target: Target)]] = []
        /// ascii: the label an accepting state completes with when the next byte is not its own.
        var terminal: [Int32?] = []
        var memo: [[ByteRun]: Int] = [:]

        mutating func node() -> Int {
            edges.append([])
            terminal.append(nil)
            return edges.count - 1
        }

        /// The edges of a node spelling `sequences` (a prefix-free set of disjoint byte strings).
        mutating func trie(_ sequences: [ByteRun]) -> [(low: UInt8, high: UInt8, target: Target)] {
            // One byte each (ASCII characters): the runs are the edges, in order.
            if sequences.allSatisfy({ $0.ranges.count == 1 }) {
                var out: [(low: UInt8, high: UInt8, target: Target)] = []
                for run in sequences.sorted(by: { $0.ranges[0].lowerBound < $1.ranges[0].lowerBound }) {
                    let r = run.ranges[0]
                    if let last = out.last, last.target == run.target, Int(last.high) + 1 == Int(r.lowerBound) {
                        out[out.count - 1].high = r.upperBound
                    } else {
                        out.append((r.lowerBound, r.upperBound, run.target))
                    }
                }
                return out
            }
            var bounds = Set<Int>()
            for s in sequences {
                bounds.insert(Int(s.ranges[0].lowerBound))
                bounds.insert(Int(s.ranges[0].upperBound) + 1)
            }
            let sorted = bounds.sorted()
            var out: [(low: UInt8, high: UInt8, target: Target)] = []
            for k in 0..<max(sorted.count - 1, 0) {
                let low = UInt8(sorted[k]), high = UInt8(sorted[k + 1] - 1)
                let group = sequences.filter { $0.ranges[0].contains(low) }
                guard !group.isEmpty else { continue }
                let target: Target
                if group.count == 1 && group[0].ranges.count == 1 {
                    target = group[0].target
                } else {
                    precondition(group.allSatisfy { $0.ranges.count > 1 }, "byte sequences that are not prefix-free")
                    let tails = group.map { ByteRun(ranges: Array($0.ranges.dropFirst()), target: $0.target) }
                        .sorted { $0.sortKey.lexicographicallyPrecedes($1.sortKey) }
                    if let n = memo[tails] {
                        target = .local(n)
                    } else {
                        let n = node()
                        memo[tails] = n
                        edges[n] = trie(tails)
                        target = .local(n)
                    }
                }
                if let last = out.last, last.target == target, Int(last.high) + 1 == Int(low) {
                    out[out.count - 1].high = high
                } else {
                    out.append((low, high, target))
                }
            }
            return out
        }
    }

    /// Adds the nodes of `dfa` (trimmed: every state can complete). Returns the edges that
    /// enter it (the opening quote of a string; a number's first byte) and the fewest bytes
    /// from there to `exit`, which every node of the automaton names as its exit.
    mutating func automaton(_ dfa: ScalarDFA, spelling: Spelling, completions: [Completion], exit: Int32,
                            startFlags: Grammar.Flags = []) -> (edges: [Edge], cost: Int) {
        var graph = ByteGraph()
        let states = dfa.reachable()
        var local: [Int32: Int] = [:]
        for s in states { local[s] = graph.node() }
        for s in states {
            var sequences: [ByteRun] = []
            for t in dfa.transitions[Int(s)] {
                for ranges in Self.spell(t.low, t.high, spelling) { sequences.append(ByteRun(ranges: ranges, target: .local(local[t.target]!))) }
            }
            let label = dfa.labels[Int(s)]
            if label >= 0 {
                switch spelling {
                case .jsonString: sequences.append(ByteRun(ranges: [0x22...0x22], target: .completion(label)))
                case .ascii: graph.terminal[local[s]!] = label
                }
            }
            graph.edges[local[s]!] = sequences.isEmpty ? [] : graph.trie(sequences)
        }
        let dist = Self.distances(graph, completions)
        var index: [Int32] = []
        for _ in graph.edges.indices { index.append(reserve()) }
        func target(_ t: Target) -> Int32 {
            switch t {
            case .local(let n): index[n]
            case .completion(let label): completions[Int(label)].target
            }
        }
        for n in graph.edges.indices {
            var node = Node(exit: exit, cost: Int32(clamping: dist[n]))
            if n == local[dfa.start]! { node.flags.formUnion(startFlags) }
            if let label = graph.terminal[n] {
                node.flags.insert(.terminal)
                node.next = completions[Int(label)].target
            }
            fill(index[n], node, edges: graph.edges[n].map { Edge(low: $0.low, high: $0.high, target: target($0.target)) })
        }
        let start = local[dfa.start]!
        switch spelling {
        case .jsonString:
            return ([Self.edge("\"", to: index[start])], min(dist[start] + 1, Self.unreachable))
        case .ascii:
            precondition(graph.terminal[start] == nil, "an automaton accepting the empty number")
            return (graph.edges[start].map { Edge(low: $0.low, high: $0.high, target: target($0.target)) }, dist[start])
        }
    }

    /// Fewest bytes from each node to the exit: Dijkstra backwards from the completions.
    private static func distances(_ graph: ByteGraph, _ completions: [Completion]) -> [Int] {
        let n = graph.edges.count
        var dist = [Int](repeating: unreachable, count: n)
        var predecessors = [[Int]](repeating: [], count: n)
        var heap = MinHeap()
        for v in 0..<n {
            var best = graph.terminal[v].map { completions[Int($0)].cost } ?? unreachable
            for e in graph.edges[v] {
                switch e.target {
                case .local(let w): predecessors[w].append(v)
                case .completion(let label): best = min(best, completions[Int(label)].cost + 1)
                }
            }
            if best < dist[v] {
                dist[v] = best
                heap.push(best, v)
            }
        }
        while let (d, v) = heap.pop() {
            guard d == dist[v] else { continue }
            for p in predecessors[v] where d + 1 < dist[p] {
                dist[p] = d + 1
                heap.push(d + 1, p)
            }
        }
        return dist.map { min($0, unreachable) }
    }

    /// The byte sequences (one range per byte) that spell the scalars `low...high`.
    static func spell(_ low: UInt32, _ high: UInt32, _ spelling: Spelling) -> [[ClosedRange<UInt8>]] {
        var out: [[ClosedRange<UInt8>]] = []
        switch spelling {
        case .ascii:
            precondition(high < 0x80, "a number automaton with a non-ASCII character")
            out.append([UInt8(low)...UInt8(high)])
        case .jsonString:
            if low <= 0x1F {
                for c in low...min(high, 0x1F) { out.append(escape(c).map { $0...$0 }) }
            }
            for piece: ClosedRange<UInt32> in [0x20...0x21, 0x22...0x22, 0x23...0x5B, 0x5C...0x5C, 0x5D...0x7F] {
                let lo = max(low, piece.lowerBound), hi = min(high, piece.upperBound)
                guard lo <= hi else { continue }
                if lo == 0x22 || lo == 0x5C { out.append([0x5C...0x5C, UInt8(lo)...UInt8(lo)]) } else { out.append([UInt8(lo)...UInt8(hi)]) }
            }
            if high >= 0x80 { utf8(max(low, 0x80), high, into: &out) }
        }
        return out
    }

    /// The JSON escape of a control character, as `JSONValue` writes it.
    private static func escape(_ c: UInt32) -> [UInt8] {
        switch c {
        case 0x08: return Array("\\b".utf8)
        case 0x09: return Array("\\t".utf8)
        case 0x0A: return Array("\\n".utf8)
        case 0x0C: return Array("\\f".utf8)
        case 0x0D: return Array("\\r".utf8)
        default:
            let hex = Array("0123456789abcdef".utf8)
            return Array("\\u00".utf8) + [hex[Int(c >> 4)], hex[Int(c & 15)]]
        }
    }

    /// UTF-8 byte-range sequences for `low...high` (no surrogates): split at the encoded-length
    /// boundaries, then wherever a range does not cover whole blocks of continuation bytes, so
    /// that each piece is a product of one range per byte.
    private static func utf8(_ low: UInt32, _ high: UInt32, into out: inout [[ClosedRange<UInt8>]]) {
        guard low <= high else { return }
        for boundary: UInt32 in [0x7F, 0x7FF, 0xFFFF] where low <= boundary && high > boundary {
            utf8(low, boundary, into: &out)
            utf8(boundary + 1, high, into: &out)
            return
        }
        if high <= 0x7F {
            out.append([UInt8(low)...UInt8(high)])
            return
        }
        let length = high <= 0x7FF ? 2 : high <= 0xFFFF ? 3 : 4
        for i in 1..<length {
            let m: UInt32 = (1 << (6 * UInt32(i))) - 1
            guard low & ~m != high & ~m else { continue }
            if low & m != 0 {
                utf8(low, low | m, into: &out)
                utf8((low | m) + 1, high, into: &out)
                return
            }
            if high & m != m {
                utf8(low, (high & ~m) - 1, into: &out)
                utf8(high & ~m, high, into: &out)
                return
            }
        }
        let a = encode(low), b = encode(high)
        out.append(zip(a, b).map { $0...$1 })
    }

    private static func encode(_ v: UInt32) -> [UInt8] {
        Array(String(Character(Unicode.Scalar(v)!)).utf8)
    }
}

/// A binary min-heap of (priority, value) pairs, for the distance computation.
struct MinHeap {
    private var items: [(Int, Int)] = []

    mutating func push(_ priority: Int, _ value: Int) {
        items.append((priority, value))
        var i = items.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            guard items[i].0 < items[parent].0 else { break }
            items.swapAt(i, parent)
            i = parent
        }
    }

    mutating func pop() -> (Int, Int)? {
        guard !items.isEmpty else { return nil }
        let top = items[0]
        items[0] = items[items.count - 1]
        items.removeLast()
        var i = 0
        while true {
            let l = 2 * i + 1, r = l + 1
            var m = i
            if l < items.count && items[l].0 < items[m].0 { m = l }
            if r < items.count && items[r].0 < items[m].0 { m = r }
            guard m != i else { break }
            items.swapAt(i, m)
            i = m
        }
        return top
    }
}
