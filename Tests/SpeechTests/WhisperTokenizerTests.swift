import Foundation
import TestSupport
import Testing
import Tokenizers

@Suite struct WhisperTokenizerTests {
    static func tokenizer(_ directory: String?, vocabularySize: Int) throws -> WhisperTokenizer {
        let directory = try #require(directory, "whisper model not installed: run scripts/setup.sh all")
        return try WhisperTokenizer(path: directory + "/tokenizer.json", vocabularySize: vocabularySize)
    }

    @Test func `special and timestamp ids match the tiny.en vocabulary`() throws {
        let t = try Self.tokenizer(SpeechModels.tinyEnglish, vocabularySize: 51864)
        #expect(t.endOfText == 50256 && t.startOfTranscript == 50257 && t.noTimestamps == 50362)
        #expect(t.timestampBegin == 50363 && t.noSpeech == 50361 && !t.isMultilingual)
        #expect(t.startSequence(language: "en") == [50257])
        #expect(t.tokenizer.tokenText(50363) == "<|0.00|>" && t.tokenizer.tokenText(51863) == "<|30.00|>")
    }

    @Test func `base is multilingual with language and task tokens`() throws {
        let t = try Self.tokenizer(SpeechModels.base, vocabularySize: 51865)
        #expect(t.isMultilingual && t.languageToken("en") == 50259 && t.languageToken("de") == 50261)
        #expect(t.startSequence(language: "en") == [50258, 50259, 50359])
        #expect(t.noSpeech == 50362 && t.timestampBegin == 50364)
        #expect(t.languages.count == 99)
    }

    /// base's `tokenizer.json` lacks the merge "Ġ t" (its merges list starts at "Ġ a"), so
    /// encoding " the" there gives "Ġ" + "the", as Hugging Face tokenizers does with that file,
    /// while the model itself emits "Ġthe": only tiny.en's text encodes back to its tokens.
    @Test func `golden tokens decode to the golden text and tiny.en text encodes back`() throws {
        for (dir, file, size) in [(SpeechModels.tinyEnglish, "asr/whisper-tiny-en.jsonl", 51864),
                                  (SpeechModels.base, "asr/whisper-base.jsonl", 51865)] {
            let t = try Self.tokenizer(dir, vocabularySize: size)
            let records = try GoldenFiles.lines(file)
            for record in records {
                for segment in record.objects("segments") {
                    let tokens = segment.ints("tokens").map(Int32.init)
                    #expect(t.decode(tokens) == segment.string("text"))
                    if size == 51864 {
                        #expect(t.encode(segment.string("text")) == tokens.filter { $0 < t.endOfText })
                    }
                }
            }
            GoldenRecords.checked(records.count, in: Self.self)
        }
        #expect(try Self.tokenizer(SpeechModels.base, vocabularySize: 51865).encode(" the") == [220, 3322])
    }

    @Test func `non-speech tokens plus the task tokens are faster-whisper's suppress list`() throws {
        for (dir, file, size) in [(SpeechModels.tinyEnglish, "asr/whisper-tiny-en.jsonl", 51864),
                                  (SpeechModels.base, "asr/whisper-base.jsonl", 51865)] {
            let t = try Self.tokenizer(dir, vocabularySize: size)
            let expected = try GoldenFiles.lines(file)[0].object("options").ints("suppress_tokens")
            let specials = [t.transcribe, t.translate, t.startOfTranscript, t.startOfPrevious, t.startOfLM, t.noSpeech]
            #expect(Set(t.nonSpeechTokens() + specials).sorted().map(Int.init) == expected)
        }
    }
}
