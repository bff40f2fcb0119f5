/// Objects: properties in schema order, each optional one skippable, required ones never.
///
/// Position i means "property i was the last one written" (-1: none yet). From position i the
/// next key may be any property j > i up to and including the first required one; `}` is
/// allowed once no required property remains. Each position is one after-value node, so the
/// automaton needs no memory of which keys were written.
extension GrammarBuilder {
    struct ObjectParts {
        var entry: Int32
        var cost: Int
        /// The node after each property's value.
        var after: [Int32]
        /// Fewest bytes from position i to the object's end, at index i + 1.
        var afterCost: [Int]
    }

    mutating func object(_ o: JSONSchema.ObjectShape, next: Int32, slot: Int, path: String) throws(EngineError) -> ObjectParts {
        let props = o.properties
        let n = props.count
        let isRequired = props.map { o.required.contains($0.name) }
        let after = (0..<n).map { _ in reserve() }
        var valueEntry: [Int32] = []
        var valueCost: [Int] = []
        for j in 0..<n {
            let v = try value(props[j].shape, next: after[j], slot: slot, path: path + "/properties/" + props[j].name)
            valueEntry.append(v.entry)
            valueCost.append(v.cost)
        }
        let keys = props.map { Array(JSONValue.quoted($0.name).utf8) }
        func candidates(after i: Int) -> [Int] {
            var result: [Int] = []
            for j in (i + 1)..<max(n, i + 1) {
                result.append(j)
                if isRequired[j] { break }
            }
            return result
        }
        func canClose(after i: Int) -> Bool { !((i + 1)..<max(n, i + 1)).contains { isRequired[$0] } }

        // Costs from the last property backwards: a key, `:`, the value, then the rest.
        var afterCost = [Int](repeating: 0, count: n + 1)
        var colonCost = [Int](repeating: 0, count: n)
        for i in stride(from: n - 1, through: -1, by: -1) {
            var best = canClose(after: i) ? 1 : Self.unreachable
            for j in candidates(after: i) {
                colonCost[j] = min(1 + valueCost[j] + afterCost[j + 1], Self.unreachable)
                best = min(best, (i >= 0 ? 1 : 0) + keys[j].count + colonCost[j])
            }
            afterCost[i + 1] = min(best, Self.unreachable)
        }
        let ws = Grammar.Flags.whitespace
        var colon: [Int32] = []
        for j in 0..<n {
            colon.append(add(Node(flags: ws, exit: next, cost: Int32(clamping: colonCost[j])),
                             edges: [Self.edge(":", to: valueEntry[j])]))
        }
        func keyLiterals(after i: Int) -> [Literal] {
            candidates(after: i).map { Literal(bytes: keys[$0], target: colon[$0], targetCost: colonCost[$0]) }
        }
        for i in 0..<n {
            var out: [Edge] = []
            let literals = keyLiterals(after: i)
            if !literals.isEmpty {
                let t = trie(literals, depth: 0, exit: next)
                let keyStart = add(Node(flags: ws, exit: next, cost: Int32(clamping: t.cost)), edges: t.edges)
                out.append(Self.edge(",", to: keyStart))
            }
            if canClose(after: i) { out.append(Self.edge("}", to: next)) }
            fill(after[i], Node(flags: ws, exit: next, cost: Int32(clamping: afterCost[i + 1])), edges: out)
        }
        var startEdges: [Edge] = canClose(after: -1) ? [Self.edge("}", to: next)] : []
        let first = keyLiterals(after: -1)
        if !first.isEmpty { startEdges += trie(first, depth: 0, exit: next).edges }
        let start = add(Node(flags: ws, exit: next, cost: Int32(clamping: afterCost[0])), edges: startEdges)
        let entry = add(Node(flags: ws, exit: next, cost: Int32(clamping: afterCost[0] + 1)), edges: [Self.edge("{", to: start)])
        return ObjectParts(entry: entry, cost: afterCost[0] + 1, after: after, afterCost: afterCost)
    }

    /// `{"key":"tag", …}`: the tag's bytes choose the variant, whose remaining members follow.
    mutating func taggedUnion(key: String, variants: [JSONSchema.Variant], next: Int32, slot: Int, path: String)
        throws(EngineError) -> (entry: Int32, cost: Int) {
        let ws = Grammar.Flags.whitespace
        var tags: [Literal] = []
        for (i, v) in variants.enumerated() {
            var o = v.rest
            o.properties.insert(.init(key, .literal([.string(v.tag)])), at: 0)
            o.required.insert(key)
            let parts = try object(o, next: next, slot: slot, path: "\(path)/anyOf/\(i)")
            tags.append(Literal(bytes: Array(JSONValue.quoted(v.tag).utf8), target: parts.after[0], targetCost: parts.afterCost[1]))
        }
        let tagTrie = trie(tags, depth: 0, exit: next)
        let tag = add(Node(flags: ws, exit: next, cost: Int32(clamping: tagTrie.cost)), edges: tagTrie.edges)
        let colon = add(Node(flags: ws, exit: next, cost: Int32(clamping: tagTrie.cost + 1)), edges: [Self.edge(":", to: tag)])
        let keyTrie = trie([Literal(bytes: Array(JSONValue.quoted(key).utf8), target: colon, targetCost: tagTrie.cost + 1)],
                           depth: 0, exit: next)
        let start = add(Node(flags: ws, exit: next, cost: Int32(clamping: keyTrie.cost)), edges: keyTrie.edges)
        let entry = add(Node(flags: ws, exit: next, cost: Int32(clamping: keyTrie.cost + 1)), edges: [Self.edge("{", to: start)])
        return (entry, keyTrie.cost + 1)
    }
}

extension Grammar {
    /// Compiles `schema`, optionally behind a prefix (tool calls), with the given limits.
    package convenience init(schema: JSONSchema, prefix: Prefix = .none, options: Options = Options()) throws(EngineError) {
        var b = GrammarBuilder(options: options)
        let root = try b.value(schema.shape, next: Grammar.trailerNode, slot: 0, path: "#")
        var start = root.entry
        var trigger: [UInt8] = []
        switch prefix {
        case .none:
            b.nodes[Int(root.entry)].flags.remove(.whitespace)  // the document starts at its first byte
        case .literal(let text):
            precondition(!text.isEmpty, "an empty literal prefix")
            let t = b.trie([.init(bytes: Array(text.utf8), target: root.entry, targetCost: root.cost)], depth: 0, exit: Grammar.doneNode)
            start = b.add(Node(exit: Grammar.doneNode, cost: Int32(clamping: t.cost)), edges: t.edges)
        case .freeTextUntil(let text):
            precondition(!text.isEmpty && text.utf8.count < 255, "a trigger of 1 to 254 bytes")
            trigger = Array(text.utf8)
            start = b.add(Node(kind: .freeText, next: root.entry, exit: -1, cost: 0))
        }
        self.init(nodes: b.nodes, edges: b.edges, trigger: trigger, start: start, options: options)
    }
}
