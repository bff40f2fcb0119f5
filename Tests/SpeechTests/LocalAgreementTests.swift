import Speech
import Testing

@Suite struct LocalAgreementTests {
    static func words(_ text: String, segment: Int = 0) -> [TimedWord] {
        text.split(separator: " ").enumerated().map { i, w in
            TimedWord(text: " " + w, start: Double(i), end: Double(i + 1), segment: segment)
        }
    }

    @Test func `a word becomes final once two consecutive passes agree on it`() {
        var a = LocalAgreement()
        #expect(a.insert(Self.words("hello there")).final.isEmpty)
        let second = a.insert(Self.words("hello there general"))
        #expect(second.final.map(\.text) == [" hello", " there"])
        #expect(second.finalPrefix == 2)
        #expect(a.tentative.map(\.text) == [" general"])
        // The next pass repeats the final words first; they are skipped, and only the new
        // agreement counts.
        let third = a.insert(Self.words("Hello, there general Kenobi"))
        #expect(third.final.map(\.text) == [" general"])
        #expect(third.finalPrefix == 3)
        #expect(a.tentative.map(\.text) == [" Kenobi"])
    }

    @Test func `disagreeing passes keep everything tentative`() {
        var a = LocalAgreement()
        _ = a.insert(Self.words("the quick round fox"))
        let r = a.insert(Self.words("a quick brown fox"))
        #expect(r.final.isEmpty)
        #expect(a.tentative.count == 4)
    }

    @Test func `final words re-worded at the head of the buffer are found by their tail`() {
        var a = LocalAgreement()
        _ = a.insert(Self.words("at eight o'clock the shelves"))
        _ = a.insert(Self.words("at eight o'clock the shelves are"))
        #expect(a.committedInBuffer.count == 5)
        // Whisper now hears "I ate a clock" for the first words: the final words' last two
        // ("the shelves") mark where the new text starts.
        let r = a.insert(Self.words("I ate a clock the shelves are half"))
        #expect(r.finalPrefix == 7)
        #expect(r.final.map(\.text) == [" are"])
    }

    @Test func `flush makes the rest final and dropped words leave the buffer`() {
        var a = LocalAgreement()
        _ = a.insert(Self.words("one two"))
        _ = a.insert(Self.words("one two three"))
        #expect(a.flush().map(\.text) == [" three"])
        #expect(a.committedInBuffer.count == 3)
        a.dropCommitted(2)
        #expect(a.committedInBuffer.map(\.text) == [" three"])
        #expect(a.force(1).isEmpty)
    }
}
