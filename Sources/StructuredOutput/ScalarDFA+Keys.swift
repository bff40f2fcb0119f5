extension ScalarDFA {
    /// Object keys, as the characters between the quotes. A declared name completes with its
    /// label (nil: the name may not be written here, and it is never an extra key either);
    /// when `extraLabel` is given, any other string of 1 to `maxExtraLength` characters
    /// completes with it. Declared names are thereby never written as extra keys.
    ///
    /// States: a trie of the declared names, then "off the trie after c characters" for the
    /// extra keys, which hold no control characters (a subset of the names JSON allows, and
    /// fewer escapes to compile).
    static func keys(names: [String], labels: [Int32?], extraLabel: Int32?, maxExtraLength: Int) -> ScalarDFA {
        var dfa = ScalarDFA()
        var children: [[(UInt32, Int32)]] = [[]]
        var depth: [Int] = [0]
        var ends: [Int32?] = [nil]  // per trie node: the label of the name ending there
        var named: [Bool] = [false]
        for (name, label) in zip(names, labels) {
            var node = 0
            for scalar in name.unicodeScalars {
                if let child = children[node].first(where: { $0.0 == scalar.value }) {
                    node = Int(child.1)
                } else {
                    children.append([])
                    depth.append(depth[node] + 1)
                    ends.append(nil)
                    named.append(false)
                    children[node].append((scalar.value, Int32(children.count - 1)))
                    node = children.count - 1
                }
            }
            named[node] = true
            ends[node] = label
        }
        let trieCount = children.count
        let extras = extraLabel != nil ? maxExtraLength : 0
        // Off-trie state for c characters (1...extras) is trieCount + c - 1.
        func off(_ c: Int) -> Int32? { c >= 1 && c <= extras ? Int32(trieCount + c - 1) : nil }
        for node in 0..<trieCount {
            var out = children[node].map { Transition(low: $0.0, high: $0.0, target: $0.1) }
            if let other = off(depth[node] + 1) {
                let taken = ScalarSet(children[node].map { $0.0...$0.0 })
                for r in taken.complement.intersection(Self.nameCharacters).ranges {
                    out.append(Transition(low: r.lowerBound, high: r.upperBound, target: other))
                }
            }
            out.sort { $0.low < $1.low }
            dfa.transitions.append(out)
            if named[node] {
                dfa.labels.append(ends[node] ?? -1)
            } else {
                dfa.labels.append(extraLabel != nil && depth[node] >= 1 && depth[node] <= extras ? extraLabel! : -1)
            }
        }
        for c in stride(from: 1, through: extras, by: 1) {
            dfa.transitions.append(off(c + 1).map { t in Self.nameCharacters.ranges.map { Transition(low: $0.lowerBound, high: $0.upperBound, target: t) } } ?? [])
            dfa.labels.append(extraLabel!)
        }
        dfa.start = 0
        return dfa
    }

    /// The characters of a free name: all but the control characters.
    static let nameCharacters = ScalarSet.all.subtracting(ScalarSet([0...0x1F]))
}
