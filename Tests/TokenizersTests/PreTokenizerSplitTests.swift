import Testing
import Tokenizers

@Suite struct PreTokenizerSplitTests {
    private func words(_ text: String, _ pre: PreTokenizer) -> [String] {
        let scalars = Array(text.unicodeScalars)
        var start = 0
        return pre.wordEnds(scalars.map(\.value)).map { end in
            defer { start = end }
            return String(String.UnicodeScalarView(scalars[start..<end]))
        }
    }

    @Test func `GPT-2 split keeps the last space of a run for the next word`() {
        #expect(words("Hello  world", .gpt2) == ["Hello", " ", " world"])
        #expect(words("end   ", .gpt2) == ["end", "   "])
        #expect(words(" a\n\nb", .gpt2) == [" a", "\n", "\n", "b"])
    }

    @Test func `GPT-2 split separates contractions letters numbers and symbols`() {
        #expect(words("I'm it's", .gpt2) == ["I", "'m", " it", "'s"])
        #expect(words("x2 -> 42!", .gpt2) == ["x", "2", " ->", " 42", "!"])
        #expect(words("naïve 東京", .gpt2) == ["naïve", " 東京"])
    }

    @Test func `smollm splits every digit before the GPT-2 split`() {
        #expect(words("a 123", .digitsThenGPT2) == ["a", " ", "1", "2", "3"])
        #expect(words("v2.0", .digitsThenGPT2) == ["v", "2", ".", "0"])
    }

    @Test func `llama3 groups digits by three and keeps newlines with preceding spaces`() {
        #expect(words("12345", .llama3) == ["123", "45"])
        #expect(words("12345", .qwen2) == ["1", "2", "3", "4", "5"])
        #expect(words("x  \n\ny", .llama3) == ["x", "  \n\n", "y"])
        #expect(words("(hi) I'LL", .llama3) == ["(hi", ")", " I", "'LL"])
    }

    @Test func `classes follow Unicode general categories and White_Space`() {
        #expect(ScalarClass(0x41).isLetter)
        #expect(ScalarClass(0x00B2).isNumber)  // superscript two: No
        #expect(ScalarClass(0x00A0).isWhitespace)  // NBSP
        #expect(ScalarClass(0x200B).isOther)  // zero-width space is Cf, not White_Space
        #expect(ScalarClass(0x0301).isOther)  // combining acute: Mn
    }
}
