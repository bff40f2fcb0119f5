/// A piece of input after special-token partitioning: raw text to tokenize, or one matched token.
enum Fragment: Equatable {
    case text(Range<Int>)  // byte range of the input
    case token(Int32)
}

/// Splits input around the texts of control, user-defined and unknown tokens.
///
/// llama.cpp `tokenizer_st_partition` semantics, which are not "longest match at each position":
/// tokens are tried one after another, longest text first, and each takes every leftmost
/// non-overlapping occurrence in the text fragments still unsplit. A trie over all special texts
/// first finds which tokens occur anywhere in the input, so only those few take the slow path.
/// User-defined tokens split even without `parseSpecial` (as in llama.cpp and HF tokenizers).
struct SpecialTokenPartition: Sendable {
    private let order: [Int32]  // special tokens, longest text first, then by id
    private let rankOf: [Int32: Int32]  // token → index in `order`
    private let children: [UInt64: Int32]  // trie edges: (node << 8 | byte) → child node
    private let terminal: [Int32]  // (nodes): token ending at that node, or -1
    private let specialOnly: Set<Int32>  // control/unknown: only with parseSpecial
    private let startsToken: [Bool]  // (256): some special text starts with this byte

    init(table: TokenTable, attributes: [TokenAttributes]) {
        var ids: [Int32] = []
        for id in 0..<table.count where attributes[id].isPartitionable && !table.text(Int32(id)).isEmpty {
            ids.append(Int32(id))
        }
        ids.sort { a, b in
            let la = table.text(a).count, lb = table.text(b).count
            return la != lb ? la > lb : a < b
        }
        order = ids
        rankOf = Dictionary(uniqueKeysWithValues: ids.enumerated().map { ($1, Int32($0)) })
        specialOnly = Set(ids.filter { attributes[Int($0)].isSpecial })
        var children: [UInt64: Int32] = [:]
        var terminal: [Int32] = [-1]
        for id in ids {
            var node: Int32 = 0
            for b in table.text(id) {
                let key = UInt64(node) << 8 | UInt64(b)
                if let child = children[key] {
                    node = child
                } else {
                    let child = Int32(terminal.count)
                    terminal.append(-1)
                    children[key] = child
                    node = child
                }
            }
            terminal[Int(node)] = id
        }
        self.children = children
        self.terminal = terminal
        var startsToken = [Bool](repeating: false, count: 256)
        for id in ids { startsToken[Int(table.text(id)[0])] = true }
        self.startsToken = startsToken
    }

    /// `trusted`, when given, limits control and unknown tokens to matches lying wholly inside
    /// one of those byte ranges (a chat template's own text); elsewhere their text stays text.
    func partition(_ input: [UInt8], parseSpecial: Bool, trusted: [Range<Int>]? = nil, table: TokenTable) -> [Fragment] {
        guard !input.isEmpty else { return [] }
        let present = presentTokens(input, parseSpecial: parseSpecial)
        func allowed(_ token: Int32, _ match: Range<Int>) -> Bool {
            guard let trusted, specialOnly.contains(token) else { return true }
            return trusted.contains { $0.lowerBound <= match.lowerBound && match.upperBound <= $0.upperBound }
        }
        var fragments: [Fragment] = [.text(0..<input.count)]
        for token in present {
            let needle = table.text(token)
            var result: [Fragment] = []
            result.reserveCapacity(fragments.count + 4)
            for fragment in fragments {
                guard case .text(var rest) = fragment else {
                    result.append(fragment)
                    continue
                }
                var from = rest.lowerBound
                while let match = Self.find(needle, in: input, within: from..<rest.upperBound) {
                    guard allowed(token, match) else {
                        from = match.lowerBound + 1  // untrusted text: this occurrence stays text
                        continue
                    }
                    if match.lowerBound > rest.lowerBound { result.append(.text(rest.lowerBound..<match.lowerBound)) }
                    result.append(.token(token))
                    rest = match.upperBound..<rest.upperBound
                    from = rest.lowerBound
                }
                if !rest.isEmpty { result.append(.text(rest)) }
            }
            fragments = result
        }
        return fragments
    }

    /// Tokens whose text occurs somewhere in `input`, in partition order.
    private func presentTokens(_ input: [UInt8], parseSpecial: Bool) -> [Int32] {
        var found: [Int32] = []
        for start in 0..<input.count where startsToken[Int(input[start])] {
            var node: Int32 = 0
            var i = start
            while i < input.count, let child = children[UInt64(node) << 8 | UInt64(input[i])] {
                node = child
                i += 1
                let id = terminal[Int(node)]
                if id >= 0 && (parseSpecial || !specialOnly.contains(id)) { found.append(id) }
            }
        }
        guard !found.isEmpty else { return [] }
        return Set(found).sorted { rankOf[$0]! < rankOf[$1]! }
    }

    private static func find(_ needle: UnsafeBufferPointer<UInt8>, in haystack: [UInt8], within range: Range<Int>) -> Range<Int>? {
        let n = needle.count
        guard n > 0, range.count >= n else { return nil }
        let first = needle.first!
        var i = range.lowerBound
        let last = range.upperBound - n
        while i <= last {
            if haystack[i] == first && haystack[i..<(i + n)].elementsEqual(needle) { return i..<(i + n) }
            i += 1
        }
        return nil
    }
}
