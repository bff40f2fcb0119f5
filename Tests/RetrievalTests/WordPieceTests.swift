import Foundation
import Testing
import Tokenizers

/// WordPiece and BERT normalization on a tiny vocabulary, case by case. The real vocabulary is
/// checked against the reference tokenizers in GoldenEmbeddingTests.
struct WordPieceTests {
    static let vocabulary = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "cat", "un", "##aff", "##able",
                             "cafe", ",", ".", "!", "中", "国", "a", "##b", "$", "hello", "world", "##s", "ü"]

    func tokenizer(matchesSpecial: Bool = true) throws -> WordPieceTokenizer {
        try WordPieceTokenizer(vocabulary: Self.vocabulary, matchesSpecialTokens: matchesSpecial)
    }

    func pieces(_ text: String, _ t: WordPieceTokenizer? = nil) throws -> [String] {
        let t = try t ?? tokenizer()
        return t.encodePieces(text).ids.map { t.tokenText($0)! }
    }

    @Test func `words split into the longest vocabulary pieces`() throws {
        #expect(try pieces("unaffable") == ["un", "##aff", "##able"])
        #expect(try tokenizer().encode("the cat") == [2, 5, 6, 3])
    }

    @Test func `lower-casing and accent stripping happen before lookup`() throws {
        #expect(try pieces("The CAFÉ") == ["the", "cafe"])
        // Decomposed input strips the same way as precomposed.
        #expect(try pieces("Cafe\u{0301}") == ["cafe"])
        // Stripping comes before lower-casing, so the dot of İ goes too.
        #expect(try pieces("İ") == ["[UNK]"])
        #expect(try pieces("ü") == ["[UNK]"], "ü becomes u, which is not in this vocabulary")
    }

    @Test func `punctuation and ASCII symbols are words of their own`() throws {
        #expect(try pieces("hello,world!") == ["hello", ",", "world", "!"])
        #expect(try pieces("a$b") == ["a", "$", "[UNK]"])
    }

    @Test func `CJK ideographs are split one per word`() throws {
        #expect(try pieces("中国") == ["中", "国"])
        #expect(try pieces("a中") == ["a", "中"])
    }

    @Test func `control and format characters vanish, whitespace controls separate`() throws {
        #expect(try pieces("the\u{0}cat") == ["[UNK]"], "NUL is dropped, leaving one unknown word 'thecat'")
        #expect(try pieces("the\u{200B}cat") == ["[UNK]"], "U+200B is a format character, dropped")
        #expect(try pieces("the\tcat\ncat\u{3000}the") == ["the", "cat", "cat", "the"])
        #expect(try pieces("\u{FFFD}") == [])
    }

    @Test func `a word without a segmentation or over 100 characters is one unknown token`() throws {
        #expect(try pieces("unzzz") == ["[UNK]"])
        #expect(try pieces(String(repeating: "a", count: 101)) == ["[UNK]"])
        #expect(try pieces("ab") == ["a", "##b"])
        #expect(try pieces("the " + String(repeating: "b", count: 5) + " cat") == ["the", "[UNK]", "cat"])
    }

    @Test func `special token texts match whole only when the tokenizer says so`() throws {
        #expect(try pieces("the[SEP]cat") == ["the", "[SEP]", "cat"])
        let plain = try tokenizer(matchesSpecial: false)
        // "[", "sep" and "]" are ordinary words here, none of them in this vocabulary.
        #expect(try pieces("the[SEP]cat", plain) == ["the", "[UNK]", "[UNK]", "[UNK]", "cat"])
    }

    @Test func `each piece knows the input scalars it came from`() throws {
        let text = "Café unaffable!"
        let encoding = try tokenizer().encodePieces(text)
        let scalars = Array(text.unicodeScalars)
        let spans = encoding.sourceRanges.map { r in String(String.UnicodeScalarView(scalars[r])) }
        #expect(spans == ["Café", "un", "aff", "able", "!"])
    }

    @Test func `GGUF vocabulary spellings map back to BERT's`() {
        #expect(WordPieceTokenizer.bertSpelling("\u{2581}the") == "the")
        #expect(WordPieceTokenizer.bertSpelling("ing") == "##ing")
        #expect(WordPieceTokenizer.bertSpelling("[CLS]") == "[CLS]")
        #expect(WordPieceTokenizer.bertSpelling("\u{2581}\u{0301}") == "\u{0301}")
    }

    @Test func `a tokenizer.json with another model type is refused`() throws {
        let json = Data(#"{"model": {"type": "BPE", "vocab": {}}}"#.utf8)
        #expect(throws: TokenizerError.unsupportedModel(name: "tokenizer.json model BPE")) {
            try WordPieceTokenizer(tokenizerJSON: json)
        }
        #expect(throws: TokenizerError.self) { try WordPieceTokenizer(tokenizerJSON: Data("not json".utf8)) }
    }

    @Test func `vocab.txt loads one token per line`() throws {
        let t = try WordPieceTokenizer(vocabText: Self.vocabulary.joined(separator: "\n") + "\n")
        #expect(t.vocabularySize == Self.vocabulary.count)
        #expect(t.encode("The cat") == [2, 5, 6, 3])
    }
}
