import Testing
import Tokenizers

@Suite struct BytePairEncoderTests {
    @Test func `the lowest merge rank applies first`() throws {
        let bcFirst = try Tiny.bpe(extra: ["ab", "bc"], merges: ["b c", "a b"])
        #expect(Tiny.texts(bcFirst, bcFirst.encode("abc", parseSpecial: false)) == ["a", "bc"])
        let abFirst = try Tiny.bpe(extra: ["ab", "bc"], merges: ["a b", "b c"])
        #expect(Tiny.texts(abFirst, abFirst.encode("abc", parseSpecial: false)) == ["ab", "c"])
    }

    @Test func `equal ranks merge leftmost first`() throws {
        let tokenizer = try Tiny.bpe(extra: ["aa"], merges: ["a a"])
        #expect(Tiny.texts(tokenizer, tokenizer.encode("aaa", parseSpecial: false)) == ["aa", "a"])
    }

    @Test func `merges chain into longer tokens and spaces use the byte alphabet`() throws {
        let tokenizer = try Tiny.bpe(extra: ["Ġw", "Ġwo", "or"], merges: ["Ġ w", "Ġw o", "o r"])
        #expect(Tiny.texts(tokenizer, tokenizer.encode("a wor", parseSpecial: false)) == ["a", "Ġwo", "r"])
    }

    @Test func `a merge result missing from the vocabulary falls back to its bytes`() throws {
        // "xy" merges but is not a token: llama.cpp emits the single-byte tokens instead.
        let tokenizer = try Tiny.bpe(extra: [], merges: ["x y"])
        #expect(Tiny.texts(tokenizer, tokenizer.encode("xy", parseSpecial: false)) == ["x", "y"])
    }

    @Test func `words never merge across pre-tokenizer boundaries`() throws {
        let tokenizer = try Tiny.bpe(extra: ["a1"], merges: ["a 1"], pre: .digitsThenGPT2)
        #expect(Tiny.texts(tokenizer, tokenizer.encode("a1", parseSpecial: false)) == ["a", "1"])
        let gpt2 = try Tiny.bpe(extra: ["a1"], merges: ["a 1"], pre: .gpt2)
        #expect(Tiny.texts(gpt2, gpt2.encode("a1", parseSpecial: false)) == ["a", "1"])
    }

    @Test func `pieces decode the byte alphabet back to raw bytes`() throws {
        let tokenizer = try Tiny.bpe(extra: ["Ġw"], merges: ["Ġ w"])
        let ids = tokenizer.encode("é w\n", parseSpecial: false)
        #expect(tokenizer.decode(ids) == "é w\n")
        #expect(Array(tokenizer.pieceBytes(tokenizer.tokenId("Ġw")!)) == [0x20, 0x77])
    }

    @Test func `a BPE vocabulary without merges is rejected`() {
        #expect(throws: TokenizerError.missingMerges) {
            try Tokenizer(spec: TokenizerSpec(tokens: ["a"], model: .bytePairEncoding, pre: .gpt2))
        }
    }

    @Test func `unknown pre-tokenizer names are a typed error`() {
        #expect(throws: TokenizerError.unsupportedPreTokenizer(name: "mystery")) {
            try PreTokenizer(ggufName: "mystery", model: .bytePairEncoding)
        }
        #expect(throws: TokenizerError.unsupportedPreTokenizer(name: "<missing>")) {
            try PreTokenizer(ggufName: nil, model: .bytePairEncoding)
        }
        #expect((try? PreTokenizer(ggufName: "smollm", model: .bytePairEncoding)) == .digitsThenGPT2)
        #expect((try? PreTokenizer(ggufName: "default", model: .sentencePiece)) == PreTokenizer.none)
    }
}

@Suite struct WholeWordLookupTests {
    @Test func `llama3 takes a whole word from the vocabulary without merging`() throws {
        let llama3 = try Tiny.bpe(extra: ["abc"], merges: [], pre: .llama3)
        #expect(Tiny.texts(llama3, llama3.encode("abc", parseSpecial: false)) == ["abc"])
        let qwen2 = try Tiny.bpe(extra: ["abc"], merges: [], pre: .qwen2)
        #expect(Tiny.texts(qwen2, qwen2.encode("abc", parseSpecial: false)) == ["a", "b", "c"])
    }
}
