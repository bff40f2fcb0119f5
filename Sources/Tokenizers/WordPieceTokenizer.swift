/// BERT's WordPiece tokenizer: `WordPieceNormalizer` words, then greedy longest-match-first
/// pieces from the vocabulary, continuation pieces spelled with a `##` prefix.
///
/// Reproduces Hugging Face `BertTokenizerFast` (tokenizers' `WordPiece` model with
/// `max_input_chars_per_word` 100): a word with no segmentation, or longer than the limit,
/// becomes the single unknown token. Immutable and shareable.
package final class WordPieceTokenizer: Sendable {
    /// `[CLS]`, put before every sequence.
    package let clsId: Int32
    /// `[SEP]`, put after every sequence.
    package let sepId: Int32
    package let unknownId: Int32
    package let padId: Int32
    package let normalizer: WordPieceNormalizer
    /// Words longer than this many scalars become the unknown token.
    package let maxInputCharsPerWord: Int
    /// Whether special-token texts such as `[SEP]` in the input become those tokens (Hugging
    /// Face matches them before normalization; llama.cpp, with `special = false`, does not).
    package let matchesSpecialTokens: Bool

    let table: TokenTable
    /// (id, scalars) of the special tokens matched in the input, longest first.
    private let specials: [(id: Int32, scalars: [Unicode.Scalar])]

    package var vocabularySize: Int { table.count }

    /// - Parameters:
    ///   - vocabulary: token texts by id, continuation pieces with their `##` prefix.
    ///   - specialTokens: texts matched whole in the input when `matchesSpecialTokens` is set.
    package init(vocabulary: [String], clsToken: String = "[CLS]", sepToken: String = "[SEP]",
                 unknownToken: String = "[UNK]", padToken: String = "[PAD]",
                 specialTokens: [String] = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"],
                 normalizer: WordPieceNormalizer = WordPieceNormalizer(), maxInputCharsPerWord: Int = 100,
                 matchesSpecialTokens: Bool) throws(TokenizerError) {
        guard !vocabulary.isEmpty else { throw .emptyVocabulary }
        let table = try TokenTable(texts: vocabulary)
        func id(_ text: String, _ role: String) throws(TokenizerError) -> Int32 {
            guard let id = table.id(of: Array(text.utf8)) else { throw .missingMetadata(key: "\(role) token '\(text)'") }
            return id
        }
        clsId = try id(clsToken, "cls")
        sepId = try id(sepToken, "sep")
        unknownId = try id(unknownToken, "unknown")
        padId = try id(padToken, "pad")
        self.table = table
        self.normalizer = normalizer
        self.maxInputCharsPerWord = maxInputCharsPerWord
        self.matchesSpecialTokens = matchesSpecialTokens
        specials = specialTokens.compactMap { text in
            table.id(of: Array(text.utf8)).map { (id: $0, scalars: Array(text.unicodeScalars)) }
        }.sorted { $0.scalars.count > $1.scalars.count }
    }

    /// `[CLS]` + the pieces of `text` + `[SEP]`, as the reference tokenizer's `input_ids`.
    package func encode(_ text: String) -> [Int32] {
        [clsId] + encodePieces(text).ids + [sepId]
    }

    /// The pieces of `text` without `[CLS]`/`[SEP]`, each with the range of input scalars
    /// (offsets into `text.unicodeScalars`) it came from.
    package func encodePieces(_ text: String) -> WordPieceEncoding {
        let input = Array(text.unicodeScalars)
        var out = WordPieceEncoding()
        out.ids.reserveCapacity(input.count / 3 + 1)
        var start = 0
        var i = 0
        while matchesSpecialTokens && i < input.count {
            guard input[i] == "[", let special = specialMatch(input, at: i) else { i += 1; continue }
            encodeText(input, start..<i, into: &out)
            out.append(special.id, i..<(i + special.scalars.count))
            i += special.scalars.count
            start = i
        }
        encodeText(input, start..<input.count, into: &out)
        return out
    }

    private func specialMatch(_ input: [Unicode.Scalar], at i: Int) -> (id: Int32, scalars: [Unicode.Scalar])? {
        specials.first { s in
            i + s.scalars.count <= input.count && input[i..<(i + s.scalars.count)].elementsEqual(s.scalars)
        }
    }

    private func encodeText(_ input: [Unicode.Scalar], _ range: Range<Int>, into out: inout WordPieceEncoding) {
        guard !range.isEmpty else { return }
        for word in normalizer.words(Array(input[range])) {
            let sources = word.sources.map { $0 + range.lowerBound }
            encodeWord(word.scalars, sources: sources, into: &out)
        }
    }

    /// Greedy longest-match-first over the word's scalars; any unmatched remainder makes the
    /// whole word one unknown token.
    private func encodeWord(_ scalars: [Unicode.Scalar], sources: [Int], into out: inout WordPieceEncoding) {
        let whole = sources.first!..<(sources.last! + 1)
        guard scalars.count <= maxInputCharsPerWord else {
            out.append(unknownId, whole)
            return
        }
        // UTF-8 bytes of the word and the byte offset where each scalar starts.
        var bytes: [UInt8] = []
        var boundaries: [Int] = []
        bytes.reserveCapacity(scalars.count + 2)
        for s in scalars {
            boundaries.append(bytes.count)
            bytes.append(contentsOf: UTF8.encode(s)!)
        }
        boundaries.append(bytes.count)
        var pieces: [(Int32, Range<Int>)] = []
        var start = 0
        while start < scalars.count {
            // Candidate texts are `##` + bytes[start...] (or bytes[0...]) cut at scalar ends.
            let prefix: [UInt8] = start > 0 ? [0x23, 0x23] : []
            let candidate = prefix + bytes[boundaries[start]...]
            var found: (Int32, Int)?
            candidate.withUnsafeBufferPointer { buffer in
                var end = scalars.count
                while end > start {
                    let length = prefix.count + boundaries[end] - boundaries[start]
                    if let id = table.id(of: UnsafeBufferPointer(rebasing: buffer[0..<length])) {
                        found = (id, end)
                        return
                    }
                    end -= 1
                }
            }
            guard let (id, end) = found else {
                out.append(unknownId, whole)
                return
            }
            pieces.append((id, sources[start]..<(sources[end - 1] + 1)))
            start = end
        }
        for (id, range) in pieces { out.append(id, range) }
    }

    /// The vocabulary text of `id` (`##` on continuation pieces), or nil outside the vocabulary.
    package func tokenText(_ id: Int32) -> String? {
        guard id >= 0, Int(id) < table.count else { return nil }
        return String(decoding: table.text(id), as: UTF8.self)
    }

    /// The id of an exact vocabulary text.
    package func tokenId(_ text: String) -> Int32? { table.id(of: Array(text.utf8)) }
}

/// Token ids with the input scalars each came from.
package struct WordPieceEncoding: Sendable, Equatable {
    package var ids: [Int32] = []
    /// Per token, the offsets in the input's `unicodeScalars` it covers (pieces of one word
    /// split the word's range; a word that became the unknown token covers the whole word).
    package var sourceRanges: [Range<Int>] = []

    package init() {}

    mutating func append(_ id: Int32, _ range: Range<Int>) {
        ids.append(id)
        sourceRanges.append(range)
    }
}
