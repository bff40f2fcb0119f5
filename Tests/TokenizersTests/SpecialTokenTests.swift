import Testing
import Tokenizers

@Suite struct SpecialTokenTests {
    @Test func `control tokens split only when special text is parsed`() throws {
        let tokenizer = try Tiny.bpe(extra: [], merges: [], control: ["<|end|>"])
        #expect(Tiny.texts(tokenizer, tokenizer.encode("a<|end|>b", parseSpecial: true)) == ["a", "<|end|>", "b"])
        #expect(tokenizer.encode("a<|end|>b", parseSpecial: false).count == 9)
    }

    @Test func `user-defined tokens split even without parsing special text`() throws {
        let tokenizer = try Tiny.bpe(extra: [], merges: [], userDefined: ["<tab>"])
        #expect(Tiny.texts(tokenizer, tokenizer.encode("x<tab>y", parseSpecial: false)) == ["x", "<tab>", "y"])
    }

    @Test func `longer special texts are matched before shorter ones anywhere in the text`() throws {
        // llama.cpp tries tokens by length, not by position: "bcde" wins over the earlier "abc".
        let tokenizer = try Tiny.bpe(extra: [], merges: [], control: ["abc", "bcde"])
        #expect(Tiny.texts(tokenizer, tokenizer.encode("abcde", parseSpecial: true)) == ["a", "bcde"])
        #expect(Tiny.texts(tokenizer, tokenizer.encode("abcabc", parseSpecial: true)) == ["abc", "abc"])
    }

    @Test func `control tokens render only when asked`() throws {
        let tokenizer = try Tiny.bpe(extra: [], merges: [], control: ["<|end|>"])
        let ids = tokenizer.encode("hi<|end|>", parseSpecial: true)
        #expect(tokenizer.decode(ids) == "hi")
        #expect(tokenizer.decode(ids, renderSpecial: true) == "hi<|end|>")
        #expect(tokenizer.isControl(ids.last!))
    }

    @Test func `end-of-turn texts join the end-of-generation set and become control tokens`() throws {
        let tokenizer = try Tokenizer(spec: TokenizerSpec(
            tokens: ["<|endoftext|>", "<|im_end|>", "a", "<reponame>"], types: [3, 1, 1, 1], merges: [],
            model: .bytePairEncoding, pre: .gpt2, eosId: 0))
        #expect(tokenizer.endOfGenerationIds == [0, 1, 3])
        #expect(tokenizer.eotId == 0 || tokenizer.eotId == 1)
        #expect(tokenizer.isControl(1))
        #expect(tokenizer.encode("a<|im_end|>", parseSpecial: true) == [2, 1])
    }

    @Test func `BOS and EOS follow the model unless overridden`() throws {
        let tokenizer = try Tokenizer(spec: TokenizerSpec(
            tokens: ["<s>", "</s>", "a"], scores: [0, 0, 0], types: [3, 3, 1], model: .sentencePiece, pre: .none,
            bosId: 0, eosId: 1, addBOS: true, addEOS: true))
        #expect(tokenizer.encode("a", parseSpecial: false) == [0, 2, 1])
        #expect(tokenizer.encode("a", addBOS: false, parseSpecial: false) == [2])
        #expect(tokenizer.encode("", parseSpecial: false) == [0, 1])
    }

    @Test func `malformed specs are typed errors`() {
        #expect(throws: TokenizerError.emptyVocabulary) {
            try Tokenizer(spec: TokenizerSpec(tokens: [], model: .sentencePiece, pre: .none))
        }
        #expect(throws: TokenizerError.lengthMismatch(field: "scores", expected: 2, actual: 1)) {
            try Tokenizer(spec: TokenizerSpec(tokens: ["a", "b"], scores: [0], model: .sentencePiece, pre: .none))
        }
        #expect(throws: TokenizerError.tokenIdOutOfRange(field: "bos", id: 5, vocabularySize: 2)) {
            try Tokenizer(spec: TokenizerSpec(tokens: ["a", "b"], model: .sentencePiece, pre: .none, bosId: 5))
        }
        #expect(throws: TokenizerError.duplicateToken(text: "a", firstId: 0, secondId: 2)) {
            try Tokenizer(spec: TokenizerSpec(tokens: ["a", "b", "a"], model: .sentencePiece, pre: .none))
        }
        #expect(throws: TokenizerError.unsupportedModel(name: "bert")) { try TokenizerModel(ggufName: "bert") }
    }

    @Test func `canonically equivalent texts stay distinct tokens`() throws {
        // Swift String equality would merge these; the byte table must not.
        let tokenizer = try Tiny.spm(pieces: [("\u{E9}", 0), ("e\u{301}", 0), ("e", 0), ("\u{301}", 0)])
        let precomposed = tokenizer.encode("\u{E9}", addBOS: false, parseSpecial: false)
        let decomposed = tokenizer.encode("e\u{301}", addBOS: false, parseSpecial: false)
        #expect(precomposed.count == 1 && decomposed.count == 1 && precomposed != decomposed)
    }
}
