/// Strings with a pattern or a format, and numbers with bounds: values whose language is a
/// regular set of characters, compiled through `ScalarDFA` into branch nodes.
extension GrammarBuilder {
    /// A string whose characters match the pattern and the format (both, when both are given),
    /// with `minLength` to `maxLength` characters. The length is enforced by a character count
    /// multiplied into the automaton, only when the pattern alone does not already keep within
    /// it. Strings with no `maxLength` (or a larger one) stop at `Options.maxStringLength`
    /// characters like other strings, or sooner when the pattern's automaton is large: the
    /// product of its states and the count stays near `maxLengthProduct` (a subset of the valid
    /// strings); never below what `minLength` or the pattern itself needs.
    mutating func text(_ t: JSONSchema.TextShape, next: Int32, path: String) throws(EngineError) -> (entry: Int32, cost: Int) {
        func tooLarge(_ error: AutomatonError) -> EngineError {
            .unsupportedSchema(path: path, keyword: "pattern or format too large to compile (over \(Self.maxAutomatonStates) automaton states)")
        }
        var automata: [ScalarNFA] = []
        do throws(AutomatonError) {
            if let p = t.pattern { automata.append(try ScalarNFA(searching: p.node)) }
            if let f = t.format { automata.append(try ScalarNFA(whole: StringFormat.generatedNodes[f]!)) }
        } catch {
            throw tooLarge(error)
        }
        var dfa: ScalarDFA
        do throws(AutomatonError) {
            dfa = try ScalarDFA.intersection(automata, maxStates: Self.maxAutomatonStates)
        } catch {
            throw tooLarge(error)
        }
        guard dfa.trim() else { throw .invalidSchema(path: path, reason: "no string matches both the pattern and the format") }
        let (shortest, longest) = dfa.lengthRange()
        let states = dfa.reachable().count
        let cap = max(t.minLength, shortest, min(t.maxLength ?? options.maxStringLength, options.maxStringLength,
                                                 max(1, Self.maxLengthProduct / states)))
        let upper = min(cap, t.maxLength ?? Int.max)
        if shortest < t.minLength || longest.map({ $0 > upper }) ?? true {
            let length = ScalarDFA.Length(min: t.minLength, max: upper)
            do throws(AutomatonError) {
                dfa = try dfa.bounded(by: length, maxStates: Self.maxAutomatonStates)
            } catch {
                throw tooLarge(error)
            }
            guard dfa.trim() else {
                throw .invalidSchema(path: path, reason: "no string of \(length.min) to \(length.max!) characters matches the pattern and format")
            }
        }
        let body = automaton(dfa, spelling: .jsonString, completions: [Completion(target: next, cost: 0)], exit: next)
        return (add(Node(flags: .whitespace, exit: next, cost: Int32(clamping: body.cost)), edges: body.edges), body.cost)
    }

    /// States of a pattern's automaton times its character count, above which a string with no
    /// tighter `maxLength` gets a smaller length cap than `Options.maxStringLength`.
    static let maxLengthProduct = 12_000

    /// A number or integer within its bounds (`ScalarNFA.decimal`).
    mutating func range(_ r: NumericRange, next: Int32, path: String) throws(EngineError) -> (entry: Int32, cost: Int) {
        var dfa: ScalarDFA
        do throws(AutomatonError) {
            let nfa = try ScalarNFA.decimal(r, maxIntegerDigits: options.maxIntegerDigits, maxFractionDigits: options.maxFractionDigits)
            dfa = try ScalarDFA.intersection([nfa], maxStates: Self.maxAutomatonStates)
        } catch {
            throw .unsupportedSchema(path: path, keyword: "number bounds too large to compile (over \(Self.maxAutomatonStates) automaton states)")
        }
        guard dfa.trim() else {
            throw .unsupportedSchema(path: path, keyword: "bounds that no number of at most \(options.maxIntegerDigits) digits meets")
        }
        let body = automaton(dfa, spelling: .ascii, completions: [Completion(target: next, cost: 0)], exit: next)
        return (add(Node(flags: .whitespace, exit: next, cost: Int32(clamping: body.cost)), edges: body.edges), body.cost)
    }

    /// `prefixItems`: `[`, the prefix items in order (the array may close once `minItems` are
    /// written), then further items of `rest` counted like an array's, up to `maxItems`.
    mutating func tuple(prefix: [JSONSchema.Shape], rest: JSONSchema.Shape?, minItems: Int, maxItems: Int?, next: Int32, slot: Int,
                        path: String) throws(EngineError) -> (entry: Int32, cost: Int) {
        let limit = maxItems ?? Int(UInt16.max)
        let p = min(prefix.count, limit)
        guard p > 0 else {
            guard let rest, limit > 0 else { return literal([.array([])], next: next) }
            return try array(rest, minItems: minItems, maxItems: maxItems, next: next, slot: slot, path: path + "/items")
        }
        let ws = Grammar.Flags.whitespace
        let after = (0..<p).map { _ in reserve() }
        var values: [(entry: Int32, cost: Int)] = []
        for k in 0..<p { values.append(try value(prefix[k], next: after[k], slot: slot, path: "\(path)/prefixItems/\(k)")) }
        // Items past the prefix: a counted loop, entered once the whole prefix is written.
        var restStart: (node: Int32, cost: Int)?
        if let rest, p == prefix.count, limit > p {
            guard slot < Self.maxArrayNesting else {
                throw .unsupportedSchema(path: path, keyword: "arrays nested more than \(Self.maxArrayNesting) deep")
            }
            let low = UInt16(clamping: max(0, minItems - p)), high = UInt16(clamping: limit - p)
            let restAfter = reserve()
            let item = try value(rest, next: restAfter, slot: slot + 1, path: path + "/items")
            fill(restAfter, Node(flags: [ws, .countItem], slot: UInt8(slot), low: low, high: high, exit: next, itemCost: Int32(clamping: item.cost)),
                 edges: [Self.edge(",", to: item.entry, condition: .belowMax), Self.edge("]", to: next, condition: .atLeastMin)])
            let n = max(1, Int(low))
            let cost = min(n * (item.cost + 1), Self.unreachable)
            restStart = (add(Node(flags: [ws, .resetCount], slot: UInt8(slot), low: low, high: high, delegate: item.entry, exit: next,
                                  cost: Int32(clamping: cost), itemCost: Int32(clamping: item.cost))), cost)
        }
        var afterCost = [Int](repeating: Self.unreachable, count: p)
        for k in stride(from: p - 1, through: 0, by: -1) {
            var best = k + 1 >= minItems ? 1 : Self.unreachable
            var edges: [Edge] = []
            if k + 1 < p {
                best = min(best, 1 + values[k + 1].cost + afterCost[k + 1])
                edges.append(Self.edge(",", to: values[k + 1].entry))
            } else if let restStart {
                best = min(best, 1 + restStart.cost)
                edges.append(Self.edge(",", to: restStart.node))
            }
            if k + 1 >= minItems { edges.append(Self.edge("]", to: next)) }
            afterCost[k] = min(best, Self.unreachable)
            fill(after[k], Node(flags: ws, exit: next, cost: Int32(clamping: afterCost[k])), edges: edges)
        }
        let openCost = min(minItems == 0 ? 1 : Self.unreachable, values[0].cost + afterCost[0])
        let open = add(Node(flags: ws, delegate: values[0].entry, exit: next, cost: Int32(clamping: openCost)),
                       edges: minItems == 0 ? [Self.edge("]", to: next)] : [])
        return (add(Node(flags: ws, exit: next, cost: Int32(clamping: openCost + 1)), edges: [Self.edge("[", to: open)]), openCost + 1)
    }
}
