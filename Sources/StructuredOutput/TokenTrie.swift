import Platform
import Tokenizers

/// Every token's bytes in one prefix tree, laid out in preorder, so that constrained decoding
/// finds the allowed tokens with one walk: a byte the grammar rejects skips its whole subtree.
///
/// Built once per tokenizer (`shared(for:)`). Tokens that render no bytes without special
/// rendering (control, unknown, unused) are left out; end-of-generation tokens are handled
/// apart.
///
/// `@unchecked Sendable`: the buffers are written only in `init` and freed in `deinit`; the
/// walk reads them without reference counting.
package final class TokenTrie: @unchecked Sendable {
    /// Subtree byte classes, for skipping walks where nothing in a subtree can matter.
    struct Classes: OptionSet {
        let rawValue: UInt8
        /// No byte is `<`, the first byte of the tool-call trigger.
        static let noAngle = Classes(rawValue: 1)
    }

    let bytes: UnsafeBufferPointer<UInt8>        // (nodes) the byte each node adds
    let depth: UnsafeBufferPointer<UInt16>       // (nodes) bytes from the root to the node, 1 for the root's children
    let subtreeEnd: UnsafeBufferPointer<Int32>   // (nodes) first node after the node's subtree
    let deepest: UnsafeBufferPointer<UInt16>     // (nodes) largest depth inside the subtree
    let classes: UnsafeBufferPointer<Classes>    // (nodes) what holds for every byte of the subtree
    /// (nodes) bit `GrammarStepper.plainPhaseBit(p)` is set when every path from the node down
    /// is valid string content (no quote, escape or control byte; valid UTF-8) entered in
    /// string phase p: then every token of the subtree is allowed inside a string.
    let stringSafe: UnsafeBufferPointer<UInt8>
    let tokenStart: UnsafeBufferPointer<Int32>   // (nodes + 1) tokens[tokenStart[i]..<tokenStart[i + 1]] end at node i
    let tokens: UnsafeBufferPointer<Int32>       // token ids, grouped by the node they end at, in preorder
    let endOfGeneration: [Int32]
    let vocabularySize: Int
    let maxTokenLength: Int

    package var nodeCount: Int { bytes.count }

    package init(tokenizer: Tokenizer) {
        let n = tokenizer.vocabularySize
        var pool: [UInt8] = []
        var offsets: [Int] = [0]
        var ids: [Int32] = []
        for id in 0..<Int32(n) {
            let piece = tokenizer.pieceBytes(id, renderSpecial: false)
            pool.append(contentsOf: piece)
            offsets.append(pool.count)
            if !piece.isEmpty && !tokenizer.isEndOfGeneration(id) { ids.append(id) }
        }
        func piece(_ id: Int32) -> ArraySlice<UInt8> { pool[offsets[Int(id)]..<offsets[Int(id) + 1]] }
        // Sort by the first eight bytes packed big-endian (zero-padded, so a prefix sorts first),
        // comparing whole pieces only on ties: far fewer byte-by-byte comparisons.
        let keys: [UInt64] = (0..<n).map { id in
            var key: UInt64 = 0
            let p = pool[offsets[id]..<min(offsets[id + 1], offsets[id] + 8)]
            for (k, b) in p.enumerated() { key |= UInt64(b) << (56 - 8 * k) }
            return key
        }
        ids.sort { a, b in
            let ka = keys[Int(a)], kb = keys[Int(b)]
            if ka != kb { return ka < kb }
            let pa = piece(a), pb = piece(b)
            return pa.lexicographicallyPrecedes(pb) || (pa == pb && a < b)
        }

        var bytes: [UInt8] = [], depth: [UInt16] = [], subtreeEnd: [Int32] = [], tokenStart: [Int32] = [], tokens: [Int32] = []
        var path: [Int] = []  // node index at each depth of the current token
        var longest = 0
        for id in ids {
            let p = piece(id)
            longest = max(longest, p.count)
            var common = 0
            while common < path.count && common < p.count && bytes[path[common]] == p[p.startIndex + common] { common += 1 }
            while path.count > common { subtreeEnd[path.removeLast()] = Int32(bytes.count) }
            for k in common..<p.count {
                path.append(bytes.count)
                bytes.append(p[p.startIndex + k])
                depth.append(UInt16(k + 1))
                subtreeEnd.append(0)
                tokenStart.append(Int32(tokens.count))
            }
            // Sorted order puts a token before every longer token it prefixes, so its node is
            // the newest one and its range is still open.
            tokens.append(id)
        }
        while let last = path.popLast() { subtreeEnd[last] = Int32(bytes.count) }
        tokenStart.append(Int32(tokens.count))

        // Subtree summaries, children before parents.
        var deepest = depth
        var classes = [Classes](repeating: [], count: bytes.count)
        var stringSafe = [UInt8](repeating: 0, count: bytes.count)
        let entryPhases: [UInt8] = [0, 7, 8, 9, 10, 11, 12, 13]  // bit k of stringSafe
        for i in stride(from: bytes.count - 1, through: 0, by: -1) {
            let b = bytes[i]
            var c: Classes = b == UInt8(ascii: "<") ? [] : .noAngle
            // For each entry phase: the phase after this byte, which every child must accept.
            var safe: UInt8 = 0
            for bit in 0..<8 where GrammarStepper.plainStringPhase(entryPhases[bit], b) != nil { safe |= 1 << bit }
            var child = i + 1
            while child < Int(subtreeEnd[i]) {
                c.formIntersection(classes[child])
                deepest[i] = max(deepest[i], deepest[child])
                for bit in 0..<8 where safe & (1 << bit) != 0 {
                    if let p = GrammarStepper.plainStringPhase(entryPhases[bit], b), stringSafe[child] & GrammarStepper.plainPhaseBit(p) == 0 { safe &= ~(1 << bit) }
                }
                child = Int(subtreeEnd[child])
            }
            classes[i] = c
            stringSafe[i] = safe
        }
        self.bytes = Self.frozen(bytes)
        self.depth = Self.frozen(depth)
        self.subtreeEnd = Self.frozen(subtreeEnd)
        self.deepest = Self.frozen(deepest)
        self.classes = Self.frozen(classes)
        self.stringSafe = Self.frozen(stringSafe)
        self.tokenStart = Self.frozen(tokenStart)
        self.tokens = Self.frozen(tokens)
        self.endOfGeneration = tokenizer.endOfGenerationIds.sorted()
        self.vocabularySize = n
        self.maxTokenLength = longest
    }

    deinit {
        for buffer in [UnsafeRawBufferPointer(bytes), UnsafeRawBufferPointer(depth), UnsafeRawBufferPointer(subtreeEnd),
                       UnsafeRawBufferPointer(deepest), UnsafeRawBufferPointer(classes), UnsafeRawBufferPointer(stringSafe), UnsafeRawBufferPointer(tokenStart),
                       UnsafeRawBufferPointer(tokens)] {
            buffer.deallocate()
        }
    }

    private static func frozen<T>(_ array: [T]) -> UnsafeBufferPointer<T> {
        let buffer = UnsafeMutableBufferPointer<T>.allocate(capacity: max(array.count, 1))
        _ = buffer.initialize(from: array)
        return UnsafeBufferPointer(rebasing: buffer[0..<array.count])
    }

    private static let cache = Locked<[(tokenizer: Tokenizer, trie: TokenTrie)]>([])

    /// The trie of `tokenizer`, built on first use and kept for the most recent tokenizers.
    package static func shared(for tokenizer: Tokenizer) -> TokenTrie {
        if let hit = cache.withLock({ $0.first { $0.tokenizer === tokenizer }?.trie }) { return hit }
        let trie = TokenTrie(tokenizer: tokenizer)
        return cache.withLock { entries in
            if let hit = entries.first(where: { $0.tokenizer === tokenizer }) { return hit.trie }
            entries.append((tokenizer, trie))
            if entries.count > 4 { entries.removeFirst() }
            return trie
        }
    }
}
