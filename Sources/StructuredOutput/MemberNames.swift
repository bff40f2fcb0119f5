/// The names of the extra members written so far, one list per object (by the slot its extra
/// members are counted in). The grammar's key automaton keeps extra names apart from the
/// declared ones, but a regular grammar cannot remember which free names it already wrote, so
/// `GrammarConstraint` refuses a token that would complete one of these again.
///
/// A name is the bytes after its opening quote up to and including its closing quote: nodes
/// flagged `keyStart` and `keyEnd` (`Grammar.Flags`) mark where it begins and ends, and a node
/// flagged `resetCount` starts a new object in its slot.
struct MemberNames {
    /// (slots) the names written in the object counted in each slot.
    private(set) var written = [[[UInt8]]](repeating: [], count: GrammarBuilder.maxArrayNesting)
    /// The bytes of the name being written; nil between names.
    private(set) var current: [UInt8]?

    /// Follows one byte the grammar consumed, which entered `node` (nil: it stayed in its node).
    mutating func follow(_ b: UInt8, entered node: Grammar.Node?) {
        if let node, node.flags.contains(.resetCount) { written[Int(node.slot)].removeAll(keepingCapacity: true) }
        if let node, node.flags.contains(.keyStart) {
            current = []
            return
        }
        guard current != nil else { return }
        current!.append(b)
        if let node, node.flags.contains(.keyEnd) {
            written[Int(node.slot)].append(current!)
            current = nil
        }
    }

    /// Whether the name made of `current` (when `withCurrent`) and then `tail` was written in
    /// the object counted in `slot`.
    func contains<Tail: Collection<UInt8>>(slot: UInt8, withCurrent: Bool, tail: Tail) -> Bool {
        let head = withCurrent ? current ?? [] : []
        for name in written[Int(slot)] where name.count == head.count + tail.count {
            if name.starts(with: head) && name.dropFirst(head.count).elementsEqual(tail) { return true }
        }
        return false
    }
}
