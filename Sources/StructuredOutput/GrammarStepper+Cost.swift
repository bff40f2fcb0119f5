/// How many bytes a state still needs before the document can end. Constrained decoding keeps
/// this within the remaining token budget (every byte has a single-byte token in byte-level
/// and byte-fallback vocabularies), so the output is always complete before `maxTokens`.
extension GrammarStepper {
    /// Fewest bytes that finish the document from `s` (0: it may end now).
    @inline(__always)
    func minimumBytesToFinish(_ s: GrammarState) -> Int {
        var total = localCost(s)
        var x = nodes[Int(s.node)].exit
        while x >= 0 {
            let n = nodes[Int(x)]
            // Entering an array's after-item node will count the item being finished.
            total += n.flags.contains(.countItem) ? Self.afterItemCost(n, count: Int(s.counts[Int(n.slot)]) + 1) : Int(n.cost)
            x = n.exit
        }
        return total
    }

    /// Bytes from `s` to entering its node's `exit`.
    @inline(__always)
    func localCost(_ s: GrammarState) -> Int {
        let n = nodes[Int(s.node)]
        switch n.kind {
        case .branch:
            return n.flags.contains(.countItem) ? Self.afterItemCost(n, count: Int(s.counts[Int(n.slot)])) : Int(n.cost)
        case .string:
            let rest = max(0, Int(n.low) - Int(s.length)) + 1  // characters still required, then `"`
            return rest + Self.pendingStringBytes(phase: s.phase)
        case .number, .integer:
            return s.phase == 1 || s.phase == 4 ? 1 : 0
        case .freeText, .done:
            return 0
        }
    }

    /// Bytes that finish an escape or UTF-8 sequence already begun (its character is counted).
    @inline(__always)
    static func pendingStringBytes(phase: UInt8) -> Int {
        switch phase {
        case 0: 0
        case 1: 1
        case 2: 4
        case 3, 4: 3
        case 5: 2
        case 6: 1
        case 7: 1
        case 8, 9, 10: 2
        default: 3
        }
    }

    /// An array after `count` items: close it, or add the items still required first.
    @inline(__always)
    static func afterItemCost(_ n: Grammar.Node, count: Int) -> Int {
        count >= Int(n.low) ? 1 : (Int(n.low) - count) * (Int(n.itemCost) + 1) + 1
    }
}

extension Grammar {
    /// An upper bound of `minimumBytesToFinish` over all reachable states: the worst local cost
    /// of each node plus the worst cost of its exit chain.
    static func costBound(_ nodes: [Node]) -> Int {
        func worstLocal(_ n: Node) -> Int {
            switch n.kind {
            case .branch:
                // After an item the count is at least 1.
                return n.flags.contains(.countItem) ? GrammarStepper.afterItemCost(n, count: 1) : Int(n.cost)
            case .string: return Int(n.low) + 1 + 4
            case .number, .integer: return 1
            case .freeText, .done: return 0
            }
        }
        var bound = 0
        for n in nodes {
            var total = worstLocal(n)
            var x = n.exit
            var guardSteps = 0
            while x >= 0 && guardSteps <= nodes.count {
                total += worstLocal(nodes[Int(x)])
                x = nodes[Int(x)].exit
                guardSteps += 1
            }
            bound = max(bound, total)
        }
        return bound
    }
}
