import Testing
import Tokenizers

@Suite struct SentencePieceEncoderTests {
    @Test func `the highest scoring piece merges first`() throws {
        let ab = try Tiny.spm(pieces: [("a", 0), ("b", 0), ("c", 0), ("ab", -1), ("bc", -2)])
        #expect(Tiny.texts(ab, ab.encode("abc", addBOS: false, parseSpecial: false)) == ["ab", "c"])
        let bc = try Tiny.spm(pieces: [("a", 0), ("b", 0), ("c", 0), ("ab", -2), ("bc", -1)])
        #expect(Tiny.texts(bc, bc.encode("abc", addBOS: false, parseSpecial: false)) == ["a", "bc"])
    }

    @Test func `spaces become the piece marker and a prefix space is optional`() throws {
        let pieces: [(String, Float)] = [("h", 0), ("i", 0), ("▁", 0), ("▁h", -1), ("▁hi", -0.5), ("hi", -3)]
        let plain = try Tiny.spm(pieces: pieces)
        #expect(Tiny.texts(plain, plain.encode("hi hi", addBOS: false, parseSpecial: false)) == ["hi", "▁hi"])
        let prefixed = try Tiny.spm(pieces: pieces, addSpacePrefix: true)
        #expect(Tiny.texts(prefixed, prefixed.encode("hi", addBOS: false, parseSpecial: false)) == ["▁hi"])
        #expect(prefixed.decode(prefixed.encode("hi hi", addBOS: false, parseSpecial: false)) == " hi hi")
    }

    @Test func `characters without a piece fall back to byte tokens`() throws {
        let tokenizer = try Tiny.spm(pieces: [("a", 0)])
        let ids = tokenizer.encode("a😀", addBOS: false, parseSpecial: false)
        #expect(Tiny.texts(tokenizer, ids) == ["a", "<0xF0>", "<0x9F>", "<0x98>", "<0x80>"])
        #expect(tokenizer.decode(ids) == "a😀")
    }

    @Test func `a prefix space is added again after each special token`() throws {
        let tokenizer = try Tiny.spm(pieces: [("x", 0), ("▁", 0), ("▁x", -1)], addSpacePrefix: true, control: ["<s>"])
        let ids = tokenizer.encode("x<s>x", addBOS: false, parseSpecial: true)
        #expect(Tiny.texts(tokenizer, ids) == ["▁x", "<s>", "▁x"])
    }
}
