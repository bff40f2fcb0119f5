import Tokenizers

/// How documents are cut into chunks before embedding.
package struct ChunkingOptions: Sendable, Equatable {
    /// Tokens per chunk (capped by what the embedding model takes, prefix included).
    package var tokens: Int
    /// Tokens each chunk repeats from the end of the previous one, so a sentence cut at a chunk
    /// boundary is whole in at least one chunk.
    package var overlap: Int

    package init(tokens: Int = 192, overlap: Int = 32) {
        self.tokens = tokens
        self.overlap = overlap
    }

    func validate() throws(RetrievalError) {
        guard tokens >= 1 else { throw .invalidArgument(name: "chunk tokens", value: String(tokens), expected: "at least 1") }
        guard overlap >= 0, overlap < tokens else {
            throw .invalidArgument(name: "chunk overlap", value: String(overlap), expected: "0 ..< \(tokens)")
        }
    }
}

/// Cuts text into overlapping windows of tokens, at word boundaries.
///
/// With an embedder the tokens are its WordPiece pieces, so every chunk fits the model. Without
/// one (lexical indexes) they are the BERT pre-tokenizer's words; such chunks are cut again by
/// tokens when an embedding model arrives.
enum TextChunker {
    /// Chunk spans of `text`, as offsets into its Unicode scalars.
    static func spans(_ text: String, tokenizer: WordPieceTokenizer?, size: Int, overlap: Int) -> [Range<Int>] {
        if let tokenizer {
            let encoding = tokenizer.encodePieces(text)
            // A piece spelled `##…` continues the word before it; chunks never start inside a word.
            let wordStarts = encoding.ids.map { !(tokenizer.tokenText($0) ?? "").hasPrefix("##") }
            return windows(encoding.sourceRanges, wordStarts: wordStarts, size: size, overlap: overlap)
        }
        let words = WordPieceNormalizer().words(Array(text.unicodeScalars))
        let ranges = words.map { $0.sources.first!..<($0.sources.last! + 1) }
        return windows(ranges, wordStarts: [Bool](repeating: true, count: ranges.count), size: size, overlap: overlap)
    }

    /// Windows of at most `size` tokens stepping by `size - overlap`, with both ends moved back
    /// to word starts (a window keeps at least one word, even when that word is longer than
    /// `size` pieces: then it is cut, as a last resort).
    static func windows(_ tokens: [Range<Int>], wordStarts: [Bool], size: Int, overlap: Int) -> [Range<Int>] {
        let n = tokens.count
        guard n > 0 else { return [] }
        func wordStart(atOrBefore i: Int, after floor: Int) -> Int {
            var j = i
            while j > floor && !wordStarts[j] { j -= 1 }
            return j > floor ? j : i
        }
        var spans: [Range<Int>] = []
        var start = 0
        while true {
            var end = min(start + size, n)
            if end < n { end = wordStart(atOrBefore: end, after: start) }
            spans.append(tokens[start].lowerBound..<tokens[end - 1].upperBound)
            if end == n { break }
            let next = wordStart(atOrBefore: max(end - overlap, start + 1), after: start)
            start = max(next, start + 1)
        }
        return spans
    }
}
