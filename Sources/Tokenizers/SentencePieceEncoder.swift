/// SentencePiece-style BPE over pieces: spaces become `▁` (U+2581), the text splits into UTF-8
/// characters, and adjacent symbols whose concatenation is a vocabulary piece merge highest score
/// first (ties: leftmost first). Characters that end up without a piece fall back to `<0xXX>`
/// byte tokens.
///
/// Behaviour of llama.cpp `llm_tokenizer_spm_session::tokenize` (any token type may be formed by
/// a merge, as there).
struct SentencePieceEncoder: Sendable {
    private let scores: [Float]
    private let byteToken: [Int32]  // (256): `<0xXX>` token, else the one-byte text token, else unk/-1

    init(table: TokenTable, scores: [Float], unknownId: Int32?) {
        self.scores = scores
        let hex = Array("0123456789ABCDEF".utf8)
        byteToken = (0..<256).map { b in
            let name: [UInt8] = Array("<0x".utf8) + [hex[b >> 4], hex[b & 15], UInt8(ascii: ">")]
            return table.id(of: name) ?? table.id(of: [UInt8(b)]) ?? unknownId ?? -1
        }
    }

    /// Appends the tokens of one raw-text fragment (spaces not yet escaped).
    func encode(fragment: ArraySlice<UInt8>, spacePrefix: Bool, table: TokenTable, into output: inout [Int32]) {
        var text: [UInt8] = []
        text.reserveCapacity(fragment.count + fragment.count / 2 + 3)
        if spacePrefix { text.append(contentsOf: [0xE2, 0x96, 0x81]) }
        for b in fragment {
            if b == 0x20 { text.append(contentsOf: [0xE2, 0x96, 0x81]) } else { text.append(b) }
        }
        guard !text.isEmpty else { return }
        withExtendedLifetime(table) {
            text.withUnsafeBufferPointer { bytes in
                scores.withUnsafeBufferPointer { scores in
                    var session = Session(bytes: bytes, table: table.lookup, scores: scores)
                    session.run()
                    session.emit(byteToken: byteToken, into: &output)
                }
            }
        }
    }

    /// Sequence length from a UTF-8 lead byte (continuation bytes count as 1, as in llama.cpp).
    static func utf8Length(_ lead: UInt8) -> Int {
        switch lead >> 4 {
        case 0xC, 0xD: return 2
        case 0xE: return 3
        case 0xF: return 4
        default: return 1
        }
    }
}

/// A queued merge; higher score first, then leftmost.
private struct Candidate: Comparable {
    var score: Float
    var left: Int32
    var right: Int32
    var size: Int32

    static func < (a: Candidate, b: Candidate) -> Bool {
        a.score > b.score || (a.score == b.score && a.left < b.left)
    }
}

/// The merge state of one fragment. Symbols are byte spans of the escaped text: `start`,
/// `length` (0 once merged away), linked-list neighbours, and the table hash of the span with
/// its shift factor, so a candidate pair hashes in O(1).
private struct Session {
    let bytes: UnsafeBufferPointer<UInt8>
    let table: TokenTable.Lookup
    let scores: UnsafeBufferPointer<Float>
    var start: [Int32] = []
    var length: [Int32] = []
    var hash: [UInt64] = []
    var power: [UInt64] = []
    var prev: [Int32] = []
    var next: [Int32] = []
    var heap = BinaryHeap<Candidate>()

    init(bytes: UnsafeBufferPointer<UInt8>, table: TokenTable.Lookup, scores: UnsafeBufferPointer<Float>) {
        self.bytes = bytes
        self.table = table
        self.scores = scores
        var offset = 0
        while offset < bytes.count {
            let n = min(SentencePieceEncoder.utf8Length(bytes[offset]), bytes.count - offset)
            start.append(Int32(offset))
            length.append(Int32(n))
            hash.append(TokenTable.hash(UnsafeBufferPointer(rebasing: bytes[offset..<(offset + n)])))
            power.append(TokenTable.power(n))
            offset += n
        }
        let count = start.count
        prev = (0..<count).map { Int32($0) - 1 }
        next = (0..<count).map { $0 + 1 < count ? Int32($0 + 1) : -1 }
    }

    func piece(_ from: Int32, _ size: Int32, hash: UInt64) -> Int32? {
        table.id(of: UnsafeBufferPointer(rebasing: bytes[Int(from)..<Int(from + size)]), hash: hash)
    }

    mutating func consider(_ left: Int32, _ right: Int32) {
        guard left >= 0, right >= 0 else { return }
        let l = Int(left), r = Int(right)
        let size = length[l] + length[r]
        guard let id = piece(start[l], size, hash: hash[l] &* power[r] &+ hash[r]) else { return }
        heap.push(Candidate(score: scores[Int(id)], left: left, right: right, size: size))
    }

    mutating func run() {
        for i in 1..<max(start.count, 1) { consider(Int32(i - 1), Int32(i)) }
        while let best = heap.pop() {
            let l = Int(best.left), r = Int(best.right)
            // Stale candidate: a side was merged away or has grown since it was queued.
            guard length[l] > 0, length[r] > 0, length[l] + length[r] == best.size else { continue }
            length[l] += length[r]
            length[r] = 0
            hash[l] = hash[l] &* power[r] &+ hash[r]
            power[l] = power[l] &* power[r]
            next[l] = next[r]
            if next[r] >= 0 { prev[Int(next[r])] = best.left }
            consider(prev[l], best.left)
            consider(best.left, next[l])
        }
    }

    func emit(byteToken: [Int32], into output: inout [Int32]) {
        var i: Int32 = 0
        while i >= 0 {
            let s = start[Int(i)], n = length[Int(i)]
            if let id = piece(s, n, hash: hash[Int(i)]) {
                output.append(id)
            } else {
                for k in Int(s)..<Int(s + n) where byteToken[Int(bytes[k])] >= 0 {
                    output.append(byteToken[Int(bytes[k])])
                }
            }
            i = next[Int(i)]
        }
    }
}
