/// Objects: properties in schema order, each optional one skippable, required ones never;
/// then, when `additionalProperties` allows them, extra members.
///
/// Position i means "property i was the last one written" (-1: none yet). From position i the
/// next key may be any property j > i up to and including the first required one; `}` is
/// allowed once no required property remains. Each position is one after-value node, so the
/// automaton needs no memory of which keys were written. Extra members may follow once no
/// required property remains: their key is any string of 1 to `maxKeyLength` characters that is
/// no declared name (nor, `GrammarConstraint` sees to it, one already written), and their count
/// (for `minProperties`/`maxProperties`) lives in the state's slot like an array's item count.
/// A position that allows both declared keys and extra ones reads the key through one automaton
/// whose accepting states say which key it was.
extension GrammarBuilder {
    struct ObjectParts {
        var entry: Int32
        var cost: Int
        /// The node after each property's value.
        var after: [Int32]
        /// Fewest bytes from position i to the object's end, at index i + 1.
        var afterCost: [Int]
    }

    /// `minProperties`/`maxProperties` made static: `maxProperties` keeps the optional properties
    /// declared first (as many as fit beside the required ones) and leaves the rest to extra
    /// members; `minProperties` makes the first optional ones required, then asks for extras.
    struct ObjectPlan {
        var properties: [JSONSchema.Property]
        var isRequired: [Bool]
        var extrasMin = 0
        var extrasMax = 0

        init(_ o: JSONSchema.ObjectShape, path: String) throws(EngineError) {
            properties = o.properties
            isRequired = properties.map { o.required.contains($0.name) }
            var room = Int(UInt16.max - 1)
            if let m = o.maxProperties {
                room = max(0, m - isRequired.filter { $0 }.count)
                var kept: [Int] = []
                for (k, r) in isRequired.enumerated() where r || room > 0 {
                    if !r { room -= 1 }
                    kept.append(k)
                }
                properties = kept.map { properties[$0] }
                isRequired = kept.map { isRequired[$0] }
            }
            extrasMax = o.additional == nil ? 0 : room
            var need = o.minProperties - isRequired.filter { $0 }.count
            for k in isRequired.indices where !isRequired[k] && need > 0 {
                isRequired[k] = true
                need -= 1
            }
            extrasMin = max(0, need)
            guard extrasMin <= extrasMax else {
                throw .unsupportedSchema(path: path, keyword: o.additional == nil
                    ? "minProperties above the declared properties (extra members need additionalProperties)"
                    : "minProperties and maxProperties that leave no room")
            }
        }
    }

    mutating func object(_ o: JSONSchema.ObjectShape, next: Int32, slot: Int, path: String) throws(EngineError) -> ObjectParts {
        let plan = try ObjectPlan(o, path: path)
        let props = plan.properties
        let n = props.count
        let isRequired = plan.isRequired
        let after = (0..<n).map { _ in reserve() }
        let colon = (0..<n).map { _ in reserve() }
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
        let extra = try extraMembers(o.additional, plan: plan, names: o.properties.map(\.name), next: next, slot: slot, path: path)
        func closes(after i: Int) -> Bool { canClose(after: i) && plan.extrasMin == 0 }

        // Costs from the last position backwards: a key, `:`, the value, then the rest.
        var afterCost = [Int](repeating: 0, count: n + 1)
        var colonCost = [Int](repeating: 0, count: n)
        var keyEdges = [[Edge]](repeating: [], count: n + 1)
        var keyCost = [Int](repeating: Self.unreachable, count: n + 1)
        for i in stride(from: n - 1, through: -1, by: -1) {
            let choices = candidates(after: i)
            for j in choices { colonCost[j] = min(1 + valueCost[j] + afterCost[j + 1], Self.unreachable) }
            if let extra, canClose(after: i) {
                var labels = [Int32?](repeating: nil, count: o.properties.count)
                for (k, j) in choices.enumerated() { labels[o.properties.firstIndex { $0.name == props[j].name }!] = Int32(k) }
                var dfa = ScalarDFA.keys(names: o.properties.map(\.name), labels: labels, extraLabel: Int32(choices.count),
                                         maxExtraLength: options.maxKeyLength)
                _ = dfa.trim()
                let completions = choices.map { Completion(target: colon[$0], cost: colonCost[$0]) } + [extra]
                (keyEdges[i + 1], keyCost[i + 1]) = automaton(dfa, spelling: .jsonString, completions: completions, exit: next,
                                                              startFlags: .keyStart)
            } else if !choices.isEmpty {
                (keyEdges[i + 1], keyCost[i + 1]) = trie(choices.map { Literal(bytes: keys[$0], target: colon[$0], targetCost: colonCost[$0]) },
                                                         depth: 0, exit: next)
            }
            var best = closes(after: i) ? 1 : Self.unreachable
            if !keyEdges[i + 1].isEmpty { best = min(best, (i >= 0 ? 1 : 0) + keyCost[i + 1]) }
            afterCost[i + 1] = min(best, Self.unreachable)
        }
        let ws = Grammar.Flags.whitespace
        // A key node that may start an extra member resets the slot's count.
        func keyFlags(after i: Int) -> Grammar.Flags { extra != nil && canClose(after: i) ? [ws, .resetCount] : ws }
        for j in 0..<n {
            fill(colon[j], Node(flags: ws, exit: next, cost: Int32(clamping: colonCost[j])), edges: [Self.edge(":", to: valueEntry[j])])
        }
        for i in 0..<n {
            var out: [Edge] = []
            if !keyEdges[i + 1].isEmpty {
                let keyStart = add(Node(flags: keyFlags(after: i), slot: UInt8(slot), exit: next, cost: Int32(clamping: keyCost[i + 1])),
                                   edges: keyEdges[i + 1])
                out.append(Self.edge(",", to: keyStart))
            }
            if closes(after: i) { out.append(Self.edge("}", to: next)) }
            fill(after[i], Node(flags: ws, exit: next, cost: Int32(clamping: afterCost[i + 1])), edges: out)
        }
        let startEdges: [Edge] = (closes(after: -1) ? [Self.edge("}", to: next)] : []) + keyEdges[0]
        let start = add(Node(flags: keyFlags(after: -1), slot: UInt8(slot), exit: next, cost: Int32(clamping: afterCost[0])), edges: startEdges)
        let entry = add(Node(flags: ws, exit: next, cost: Int32(clamping: afterCost[0] + 1)), edges: [Self.edge("{", to: start)])
        return ObjectParts(entry: entry, cost: afterCost[0] + 1, after: after, afterCost: afterCost)
    }

    /// The loop of extra members (key, `:`, value, then `,` and another or `}`), counted in
    /// `slot`. Returns how a key automaton completes into the first one: its colon node and the
    /// fewest bytes from there to the object's end. Nil when no extra member may be written.
    private mutating func extraMembers(_ shape: JSONSchema.Shape?, plan: ObjectPlan, names: [String], next: Int32, slot: Int,
                                       path: String) throws(EngineError) -> Completion? {
        guard let shape, plan.extrasMax > 0 else { return nil }
        guard slot < Self.maxArrayNesting else {
            throw .unsupportedSchema(path: path, keyword: "additional members nested more than \(Self.maxArrayNesting) deep")
        }
        let ws = Grammar.Flags.whitespace
        let afterExtra = reserve()
        let v = try value(shape, next: afterExtra, slot: slot + 1, path: path + "/additionalProperties")
        let colonCost = min(1 + v.cost, Self.unreachable)
        let extraColon = add(Node(flags: [ws, .keyEnd], slot: UInt8(slot), exit: afterExtra, cost: Int32(clamping: colonCost)),
                             edges: [Self.edge(":", to: v.entry)])
        var dfa = ScalarDFA.keys(names: names, labels: names.map { _ in nil }, extraLabel: 0, maxExtraLength: options.maxKeyLength)
        guard dfa.trim() else { throw .unsupportedSchema(path: path, keyword: "additionalProperties with no key left to write") }
        let loop = automaton(dfa, spelling: .jsonString, completions: [Completion(target: extraColon, cost: colonCost)], exit: afterExtra,
                             startFlags: .keyStart)
        let loopStart = add(Node(flags: ws, exit: afterExtra, cost: Int32(clamping: loop.cost)), edges: loop.edges)
        var node = Node(flags: [ws, .countItem], slot: UInt8(slot), low: UInt16(plan.extrasMin), high: UInt16(clamping: plan.extrasMax),
                        exit: next, itemCost: Int32(clamping: loop.cost))
        node.cost = 1
        fill(afterExtra, node, edges: [Self.edge(",", to: loopStart, condition: .belowMax), Self.edge("}", to: next, condition: .atLeastMin)])
        let rest = GrammarStepper.afterItemCost(node, count: 1)
        return Completion(target: extraColon, cost: min(colonCost + rest, Self.unreachable))
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
        let root = try b.value(schema.generationShape(options: options), next: Grammar.trailerNode, slot: 0, path: "#")
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
