/// Compiles a `JSONSchema.Shape` into `Grammar` nodes.
///
/// Every value compiles to an entry node (a branch that consumes the value's first byte)
/// whose completion enters the `next` node given by its container; each node also records the
/// fewest bytes from it to that completion (`cost`), from which the decoder bounds how long the
/// document can still take.
struct GrammarBuilder {
    typealias Node = Grammar.Node
    typealias Edge = Grammar.Edge
    typealias Shape = JSONSchema.Shape

    /// One literal of a trie: its bytes, the node entered after it and that node's cost.
    struct Literal {
        var bytes: [UInt8]
        var target: Int32
        var targetCost: Int
    }

    let options: Grammar.Options
    var nodes: [Node] = [Node(kind: .done, exit: -1, cost: 0)]  // Grammar.doneNode
    var edges: [Edge] = []
    static let maxArrayNesting = 8
    /// Automata for patterns, formats and number ranges with more states are refused.
    static let maxAutomatonStates = 50_000
    /// Costs saturate here, so a hostile schema (nested arrays with huge minItems) cannot
    /// overflow; such a document never fits a token budget anyway.
    static let unreachable = Int(Int32.max)

    init(options: Grammar.Options) {
        self.options = options
        let trailer = add(Node(exit: -1, cost: 0), edges: [Self.edge(" ", to: Grammar.doneNode), Self.edge("\n", to: Grammar.doneNode)])
        precondition(trailer == Grammar.trailerNode)
    }

    mutating func add(_ node: Node, edges e: [Edge] = []) -> Int32 {
        nodes.append(node)
        let index = Int32(nodes.count - 1)
        fill(index, node, edges: e)
        return index
    }

    mutating func reserve() -> Int32 {
        nodes.append(Node())
        return Int32(nodes.count - 1)
    }

    mutating func fill(_ index: Int32, _ node: Node, edges e: [Edge]) {
        var n = node
        n.edgeStart = Int32(edges.count)
        n.edgeCount = Int32(e.count)
        edges += e
        nodes[Int(index)] = n
    }

    static func edge(_ c: Character, to target: Int32, phase: UInt8 = 0, condition: Grammar.Guard = .none) -> Edge {
        let b = c.asciiValue ?? 0
        return Edge(low: b, high: b, condition: condition, phase: phase, target: target)
    }

    /// Compiles a value that enters `next` when complete; `slot` is its array nesting level.
    mutating func value(_ shape: Shape, next: Int32, slot: Int, path: String) throws(EngineError) -> (entry: Int32, cost: Int) {
        let v = try unclampedValue(shape, next: next, slot: slot, path: path)
        return (v.entry, min(v.cost, Self.unreachable))
    }

    private mutating func unclampedValue(_ shape: Shape, next: Int32, slot: Int, path: String) throws(EngineError) -> (entry: Int32, cost: Int) {
        let ws = Grammar.Flags.whitespace
        switch shape {
        case .null: return literal([.null], next: next)
        case .boolean: return literal([.bool(false), .bool(true)], next: next)
        case .literal(let values): return literal(values, next: next)
        case .string(let minLength, let maxLength):
            let high = max(minLength, maxLength ?? options.maxStringLength)
            let body = add(Node(kind: .string, low: UInt16(minLength), high: UInt16(clamping: high), next: next, exit: next))
            return (add(Node(flags: ws, exit: next, cost: Int32(clamping: minLength + 2)), edges: [Self.edge("\"", to: body)]), minLength + 2)
        case .number, .integer:
            let number = add(Node(kind: shape == .number ? .number : .integer, low: UInt16(clamping: options.maxFractionDigits),
                                  high: UInt16(clamping: options.maxIntegerDigits), next: next, exit: next))
            let digits = Edge(low: UInt8(ascii: "1"), high: UInt8(ascii: "9"), phase: 3, target: number)
            let entryEdges = [Self.edge("-", to: number, phase: 1), Self.edge("0", to: number, phase: 2), digits]
            return (add(Node(flags: ws, exit: next, cost: 1), edges: entryEdges), 1)
        case .object(let o):
            let parts = try object(o, next: next, slot: slot, path: path)
            return (parts.entry, parts.cost)
        case .array(let items, let minItems, let maxItems):
            return try array(items, minItems: minItems, maxItems: maxItems, next: next, slot: slot, path: path)
        case .anyOf(let alternatives):
            var all: [Edge] = []
            var best = Self.unreachable
            for (i, alt) in alternatives.enumerated() {
                let v = try value(alt, next: next, slot: slot, path: "\(path)/anyOf/\(i)")
                let n = nodes[Int(v.entry)]
                let own = edges[Int(n.edgeStart)..<Int(n.edgeStart + n.edgeCount)]
                for e in own where all.contains(where: { $0.low <= e.high && e.low <= $0.high }) {
                    throw .unsupportedSchema(path: path, keyword: "anyOf alternatives that can begin with the same character")
                }
                all += own
                best = min(best, v.cost)
            }
            return (add(Node(flags: ws, exit: next, cost: Int32(clamping: best)), edges: all), best)
        case .taggedUnion(let key, let variants):
            return try taggedUnion(key: key, variants: variants, next: next, slot: slot, path: path)
        case .text(let t):
            return try text(t, next: next, path: path)
        case .range(let r):
            return try range(r, next: next, path: path)
        case .tuple(let prefix, let rest, let minItems, let maxItems):
            return try tuple(prefix: prefix, rest: rest, minItems: minItems, maxItems: maxItems, next: next, slot: slot, path: path)
        case .reference, .any:
            preconditionFailure("compile JSONSchema.generationShape, which has no references or open values")
        }
    }

    /// A trie over the literals' bytes: the edges of its root and the root's cost. Inner nodes
    /// where one literal ends and a longer one continues complete on any other byte.
    mutating func trie(_ items: [Literal], depth: Int, exit: Int32) -> (edges: [Edge], cost: Int) {
        var result: [Edge] = []
        var best = Self.unreachable
        let firstBytes = Set(items.map { $0.bytes[depth] }).sorted()
        for b in firstBytes {
            let group = items.filter { $0.bytes[depth] == b }
            let ending = group.first { $0.bytes.count == depth + 1 }
            let longer = group.filter { $0.bytes.count > depth + 1 }
            if longer.isEmpty, let end = ending {
                result.append(Edge(low: b, high: b, target: end.target))
                best = min(best, 1 + end.targetCost)
                continue
            }
            let child = trie(longer, depth: depth + 1, exit: exit)
            var node = Node(exit: exit)
            var cost = child.cost
            if let end = ending {
                node.flags.insert(.terminal)
                node.next = end.target
                cost = min(cost, end.targetCost)
            }
            node.cost = Int32(clamping: cost)
            result.append(Edge(low: b, high: b, target: add(node, edges: child.edges)))
            best = min(best, 1 + cost)
        }
        return (result, best)
    }

    mutating func literal(_ values: [JSONValue], next: Int32) -> (entry: Int32, cost: Int) {
        var seen: Set<[UInt8]> = []
        var items: [Literal] = []
        for v in values {
            let bytes = Array(v.serialized.utf8)
            if seen.insert(bytes).inserted { items.append(Literal(bytes: bytes, target: next, targetCost: 0)) }
        }
        let t = trie(items, depth: 0, exit: next)
        return (add(Node(flags: .whitespace, exit: next, cost: Int32(clamping: t.cost)), edges: t.edges), t.cost)
    }

    mutating func array(_ items: Shape, minItems: Int, maxItems: Int?, next: Int32, slot: Int, path: String)
        throws(EngineError) -> (entry: Int32, cost: Int) {
        guard slot < Self.maxArrayNesting else {
            throw .unsupportedSchema(path: path, keyword: "arrays nested more than \(Self.maxArrayNesting) deep")
        }
        let afterItem = reserve()
        let item = try value(items, next: afterItem, slot: slot + 1, path: path + "/items")
        let high = UInt16(clamping: maxItems ?? Int(UInt16.max))
        let low = UInt16(minItems)
        fill(afterItem, Node(flags: [.whitespace, .countItem], slot: UInt8(slot), low: low, high: high, exit: next,
                             itemCost: Int32(clamping: item.cost)),
             edges: [Self.edge(",", to: item.entry, condition: .belowMax), Self.edge("]", to: next, condition: .atLeastMin)])
        let openCost = min(minItems == 0 ? 1 : minItems * item.cost + (minItems - 1) + 1, Self.unreachable)
        let open = add(Node(flags: [.whitespace, .resetCount], slot: UInt8(slot), low: low, high: high,
                            delegate: high > 0 ? item.entry : -1, exit: next, cost: Int32(clamping: openCost), itemCost: Int32(clamping: item.cost)),
                       edges: minItems == 0 ? [Self.edge("]", to: next)] : [])
        return (add(Node(flags: .whitespace, exit: next, cost: Int32(clamping: openCost + 1)), edges: [Self.edge("[", to: open)]), openCost + 1)
    }
}
