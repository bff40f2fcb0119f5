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

    private struct Candidate {
        var score: Float
        var left: Int32
        var right: Int32
        var size: Int32
    }

    /// Appends the tokens of one raw-text fragment (spaces not yet escaped).
    func encode(fragment: ArraySlice<UInt8>, spacePrefix: Bool, table: TokenTable, into output: inout [Int32]) {
        var text: [UInt8] = []
        text.reserveCapacity(fragment.count + 8)
        if spacePrefix { text.append(contentsOf: [0xE2, 0x96, 0x81]) }
        for b in fragment {
            if b == 0x20 { text.append(contentsOf: [0xE2, 0x96, 0x81]) } else { text.append(b) }
        }
        guard !text.isEmpty else { return }

        // Symbols are byte spans of `text`: start, length (0 once merged away), neighbours.
        var start: [Int32] = [], length: [Int32] = []
        var offset = 0
        while offset < text.count {
            let n = min(Self.utf8Length(text[offset]), text.count - offset)
            start.append(Int32(offset))
            length.append(Int32(n))
            offset += n
        }
        let count = start.count
        var prev = (0..<count).map { Int32($0) - 1 }
        var next = (0..<count).map { $0 + 1 < count ? Int32($0 + 1) : -1 }
        var heap = BinaryHeap<Candidate> { a, b in a.score > b.score || (a.score == b.score && a.left < b.left) }

        text.withUnsafeBufferPointer { bytes in
            func piece(_ from: Int32, _ size: Int32) -> Int32? {
                table.id(of: UnsafeBufferPointer(rebasing: bytes[Int(from)..<Int(from + size)]))
            }
            func consider(_ left: Int32, _ right: Int32) {
                guard left >= 0, right >= 0 else { return }
                let size = length[Int(left)] + length[Int(right)]
                guard let id = piece(start[Int(left)], size) else { return }
                heap.push(Candidate(score: scores[Int(id)], left: left, right: right, size: size))
            }
            for i in 1..<max(count, 1) { consider(Int32(i - 1), Int32(i)) }
            while let best = heap.pop() {
                let l = Int(best.left), r = Int(best.right)
                guard length[l] > 0, length[r] > 0, length[l] + length[r] == best.size else { continue }
                length[l] += length[r]
                length[r] = 0
                next[l] = next[r]
                if next[r] >= 0 { prev[Int(next[r])] = best.left }
                consider(prev[l], best.left)
                consider(best.left, next[l])
            }
            var i: Int32 = 0
            while i >= 0 {
                if let id = piece(start[Int(i)], length[Int(i)]) {
                    output.append(id)
                } else {
                    for k in Int(start[Int(i)])..<Int(start[Int(i)] + length[Int(i)]) where byteToken[Int(bytes[k])] >= 0 {
                        output.append(byteToken[Int(bytes[k])])
                    }
                }
                i = next[Int(i)]
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
