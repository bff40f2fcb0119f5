import Platform

/// GPT-2 style byte-level BPE: a word's bytes become alphabet symbols, then adjacent pairs merge
/// lowest merge rank first (ties: leftmost first) until no listed pair remains.
///
/// Behaviour of llama.cpp `llm_tokenizer_bpe_session::tokenize`. Symbols are interned ids rather
/// than strings: vocabulary ids for texts in the vocabulary, ids past the vocabulary for merge
/// results or byte characters it lacks, so a pair lookup is one hash of two integers.
final class BytePairEncoder: Sendable {
    private let vocabularySize: Int
    private let byteSymbol: [Int32]  // (256): interned symbol of each byte's alphabet character
    private let pairs: [UInt64: UInt64]  // (left << 32 | right) → (rank << 32 | merged symbol)
    private let extraTexts: [[UInt8]]  // texts of interned symbols ≥ vocabularySize
    private let singleByteToken: [Int32]  // (256): token whose text is that one byte, or -1
    private let wholeWordLookup: Bool
    private let cache = Locked<[[UInt8]: [Int32]]>([:])
    private static let cacheLimit = 1 << 16

    /// - Parameter wholeWordLookup: llama.cpp `ignore_merges`: a word that is itself a vocabulary
    ///   entry becomes that token without merging (Llama 3).
    init(table: TokenTable, merges: [String], wholeWordLookup: Bool) {
        var extras: [[UInt8]] = []
        var extraIds: [[UInt8]: Int32] = [:]
        let vocabularySize = table.count
        func intern(_ text: [UInt8]) -> Int32 {
            if let id = table.id(of: text) { return id }
            if let id = extraIds[text] { return id }
            let id = Int32(vocabularySize + extras.count)
            extras.append(text)
            extraIds[text] = id
            return id
        }
        byteSymbol = ByteLevelAlphabet.utf8OfByte.map(intern)
        var pairs: [UInt64: UInt64] = [:]
        pairs.reserveCapacity(merges.count)
        for (rank, merge) in merges.enumerated() {
            // "left right": split at the first space after the first byte (a left side may be " ").
            let bytes = Array(merge.utf8)
            guard bytes.count > 2, let split = bytes[1...].firstIndex(of: 0x20) else { continue }
            let left = Array(bytes[..<split]), right = Array(bytes[(split + 1)...])
            let key = UInt64(UInt32(bitPattern: intern(left))) << 32 | UInt64(UInt32(bitPattern: intern(right)))
            if pairs[key] == nil {  // the first (best) rank of a repeated merge wins
                pairs[key] = UInt64(rank) << 32 | UInt64(UInt32(bitPattern: intern(left + right)))
            }
        }
        self.pairs = pairs
        self.vocabularySize = vocabularySize
        self.extraTexts = extras
        self.singleByteToken = (0..<256).map { table.id(of: [UInt8($0)]) ?? -1 }
        self.wholeWordLookup = wholeWordLookup
    }

    /// Appends the tokens of one pre-tokenized word (its raw UTF-8 bytes).
    func encode(word: ArraySlice<UInt8>, table: TokenTable, into output: inout [Int32]) {
        if word.count == 1 {
            emit(byteSymbol[Int(word.first!)], into: &output)
            return
        }
        let key = Array(word)
        if let hit = cache.withLock({ $0[key] }) {
            output.append(contentsOf: hit)
            return
        }
        var result: [Int32] = []
        if wholeWordLookup, let id = table.id(of: key.flatMap { ByteLevelAlphabet.utf8OfByte[Int($0)] }) {
            result.append(id)
        } else {
            for symbol in merge(key) { emit(symbol, into: &result) }
        }
        cache.withLock { cache in
            if cache.count >= Self.cacheLimit { cache.removeAll(keepingCapacity: true) }
            cache[key] = result
        }
        output.append(contentsOf: result)
    }

    /// A queued merge; lower rank first, then leftmost.
    private struct Candidate: Comparable {
        var rank: UInt32
        var left: Int32
        var right: Int32
        var leftSymbol: Int32
        var rightSymbol: Int32

        static func < (a: Candidate, b: Candidate) -> Bool {
            a.rank < b.rank || (a.rank == b.rank && a.left < b.left)
        }
    }

    /// Runs the merges over one word and returns its final symbols in order.
    private func merge(_ word: [UInt8]) -> [Int32] {
        let n = word.count
        var symbol = word.map { byteSymbol[Int($0)] }
        var prev = (0..<n).map { Int32($0) - 1 }
        var next = (0..<n).map { $0 + 1 < n ? Int32($0 + 1) : -1 }
        var heap = BinaryHeap<Candidate>()
        func consider(_ left: Int32, _ right: Int32) {
            guard left >= 0, right >= 0 else { return }
            let l = symbol[Int(left)], r = symbol[Int(right)]
            let key = UInt64(UInt32(bitPattern: l)) << 32 | UInt64(UInt32(bitPattern: r))
            guard let found = pairs[key] else { return }
            heap.push(Candidate(rank: UInt32(found >> 32), left: left, right: right, leftSymbol: l, rightSymbol: r))
        }
        for i in 1..<n { consider(Int32(i - 1), Int32(i)) }
        while let best = heap.pop() {
            let l = Int(best.left), r = Int(best.right)
            // Stale candidate: one side was merged away or has grown since it was queued.
            guard symbol[l] == best.leftSymbol, symbol[r] == best.rightSymbol, next[l] == best.right else { continue }
            let key = UInt64(UInt32(bitPattern: best.leftSymbol)) << 32 | UInt64(UInt32(bitPattern: best.rightSymbol))
            symbol[l] = Int32(truncatingIfNeeded: pairs[key]! & 0xFFFF_FFFF)
            symbol[r] = -1
            next[l] = next[r]
            if next[r] >= 0 { prev[Int(next[r])] = best.left }
            consider(prev[l], best.left)
            consider(best.left, next[l])
        }
        var out: [Int32] = []
        var i: Int32 = 0
        while i >= 0 {
            out.append(symbol[Int(i)])
            i = next[Int(i)]
        }
        return out
    }

    /// A symbol outside the vocabulary falls back to the tokens of its single bytes, skipping
    /// bytes with no token (llama.cpp does the same; GPT-2 vocabularies have all 256).
    private func emit(_ symbol: Int32, into output: inout [Int32]) {
        if Int(symbol) < vocabularySize {
            output.append(symbol)
            return
        }
        for b in extraTexts[Int(symbol) - vocabularySize] where singleByteToken[Int(b)] >= 0 {
            output.append(singleByteToken[Int(b)])
        }
    }
}
