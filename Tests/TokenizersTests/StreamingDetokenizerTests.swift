import Testing
import Tokenizers

@Suite struct StreamingDetokenizerTests {
    @Test func `a four-byte emoji split over byte tokens appears only when complete`() throws {
        let tokenizer = try Tiny.spm(pieces: [("a", 0)])
        let ids = tokenizer.encode("a😀a", addBOS: false, parseSpecial: false)
        #expect(ids.count == 6)
        var stream = StreamingDetokenizer(tokenizer: tokenizer)
        #expect(ids.map { stream.append($0) } == ["a", "", "", "", "😀", "a"])
        #expect(stream.flush() == "")
    }

    @Test func `an unfinished sequence becomes a replacement character at flush`() throws {
        let tokenizer = try Tiny.spm(pieces: [("a", 0)])
        let ids = tokenizer.encode("😀", addBOS: false, parseSpecial: false)
        var stream = StreamingDetokenizer(tokenizer: tokenizer)
        #expect(stream.append(ids[0]) == "")
        #expect(stream.append(ids[1]) == "")
        #expect(stream.flush() == "\u{FFFD}")
        #expect(stream.append(tokenizer.tokenId("a")!) == "a")
    }

    @Test func `bytes that can never be valid are not held back`() throws {
        let tokenizer = try Tiny.spm(pieces: [("a", 0)])
        var stream = StreamingDetokenizer(tokenizer: tokenizer)
        #expect(stream.append(tokenizer.tokenId("<0x80>")!) == "\u{FFFD}")
        #expect(stream.append(tokenizer.tokenId("<0xFF>")!) == "\u{FFFD}")
        #expect(stream.append(tokenizer.tokenId("a")!) == "a")
    }

    @Test func `incomplete suffix lengths`() {
        #expect(StreamingDetokenizer.incompleteSuffixLength([0x61]) == 0)
        #expect(StreamingDetokenizer.incompleteSuffixLength([0x61, 0xF0, 0x9F]) == 2)
        #expect(StreamingDetokenizer.incompleteSuffixLength([0xF0, 0x9F, 0x98, 0x80]) == 0)
        #expect(StreamingDetokenizer.incompleteSuffixLength([0xE2, 0x96]) == 2)
        #expect(StreamingDetokenizer.incompleteSuffixLength([0x80, 0x80]) == 0)
    }
}
