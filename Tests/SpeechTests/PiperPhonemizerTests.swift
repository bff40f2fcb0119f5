import Foundation
import Phonemes
import Testing
import TestSupport

/// The text front end against piper-tts 1.8.0 (golden/tts/piper-joe.jsonl), over Debian's espeak-ng.
@Suite struct PiperPhonemizerTests {
    static func joeConfig() throws -> PiperVoiceConfig {
        try PiperVoiceConfig(path: try #require(TestModels.path("en_US-joe-medium.onnx.json"),
                                                "en_US-joe-medium.onnx.json not installed: run scripts/setup.sh all"))
    }

    @Test func `the joe voice config parses`() throws {
        let config = try Self.joeConfig()
        #expect(config.sampleRate == 22_050)
        #expect(config.espeakVoice == "en-us")
        #expect(config.noiseScale == 0.667 && config.lengthScale == 1 && config.noiseW == 0.8)
        #expect(config.phonemeIDMap.count == 151)
        #expect(config.phonemeIDMap["ˈ"] == [120])
    }

    @Test func `phoneme ids equal piper's for every golden sentence`() throws {
        let config = try Self.joeConfig()
        let phonemizer = PiperPhonemizer(config: config)
        let records = try GoldenFiles.lines("tts/piper-joe.jsonl")
        #expect(records.count == 2)
        for record in records {
            let sentences = try phonemizer.sentences(record.string("text"))
            #expect(sentences.count == 1, "\(record.string("id"))")
            #expect(sentences.first?.phonemeString == record.string("phoneme_string"), "\(record.string("id"))")
            #expect(sentences.first?.ids == record.ints("phoneme_ids"), "\(record.string("id"))")
        }
        GoldenRecords.checked(records.count, in: Self.self)
    }

    @Test func `clause punctuation is kept and sentences split at full stops, questions and exclamations`() throws {
        let config = try Self.joeConfig()
        let sentences = try PiperPhonemizer(config: config).sentences("Hello there. How are you? Fine, thanks! Wait: now; yes")
        #expect(sentences.map(\.text) == ["Hello there.", "How are you?", "Fine, thanks!", "Wait: now; yes"])
        #expect(sentences.map { $0.phonemeString.last } == [".", "?", "!", "s"])
        #expect(sentences[2].phonemeString.contains(", "))
        #expect(sentences[3].phonemeString.contains(": ") && sentences[3].phonemeString.contains("; "))
        for sentence in sentences {
            #expect(sentence.ids.first == 1 && sentence.ids.last == 2)
            #expect(sentence.ids.count == 2 * sentence.phonemes.count + 3)
        }
    }

    @Test func `text with no words gives no sentences`() throws {
        let config = try Self.joeConfig()
        let phonemizer = PiperPhonemizer(config: config)
        #expect(try phonemizer.sentences("").isEmpty)
        #expect(try phonemizer.sentences("  ...  ").isEmpty)
    }

    @Test func `unknown phonemes are skipped`() {
        let config = PiperVoiceConfig(sampleRate: 16_000, espeakVoice: "en-us", noiseScale: 0, lengthScale: 1, noiseW: 0,
                                      phonemeIDMap: ["_": [0], "^": [1], "$": [2], "a": [7]])
        #expect(config.phonemeIDs(for: ["a", "ʒ", "a"]) == [1, 0, 7, 0, 7, 0, 2])
        #expect(config.unknownPhonemes(in: ["a", "ʒ"]) == ["ʒ"])
    }

    @Test func `clause terminators are read back from the clause text`() {
        #expect(ClauseTerminator(clause: "warm, w") == .none)
        #expect(ClauseTerminator(clause: "warm, ") == .comma)
        #expect(ClauseTerminator(clause: "He said \"yes.\" ") == .period)
        #expect(ClauseTerminator(clause: "Wait... ") == .semicolon)
        #expect(ClauseTerminator(clause: "Really?!") == .exclamation)
    }

    @Test(arguments: [
        ("[1, 2]", PhonemeError.malformedJSON(reason: "top level is not an object")),
        (#"{"espeak": {"voice": "en-us"}, "inference": {"noise_scale": 0, "length_scale": 1, "noise_w": 0}, "phoneme_id_map": {"_": [0], "^": [1], "$": [2]}}"#,
         PhonemeError.missingKey("audio")),
        (#"{"audio": {"sample_rate": "fast"}, "espeak": {"voice": "en-us"}, "inference": {"noise_scale": 0, "length_scale": 1, "noise_w": 0}, "phoneme_id_map": {"_": [0], "^": [1], "$": [2]}}"#,
         PhonemeError.invalidValue(key: "audio.sample_rate", expected: "a positive integer")),
        (#"{"audio": {"sample_rate": 22050}, "espeak": {}, "inference": {"noise_scale": 0, "length_scale": 1, "noise_w": 0}, "phoneme_id_map": {"_": [0], "^": [1], "$": [2]}}"#,
         PhonemeError.missingKey("espeak.voice")),
        (#"{"audio": {"sample_rate": 22050}, "espeak": {"voice": "en-us"}, "inference": {"noise_scale": 0, "length_scale": 1}, "phoneme_id_map": {"_": [0], "^": [1], "$": [2]}}"#,
         PhonemeError.missingKey("inference.noise_w")),
        (#"{"audio": {"sample_rate": 22050}, "espeak": {"voice": "en-us"}, "inference": {"noise_scale": 0, "length_scale": 1, "noise_w": 0}, "phoneme_id_map": {"_": [0], "^": [1]}}"#,
         PhonemeError.missingKey("phoneme_id_map[$]")),
        (#"{"audio": {"sample_rate": 22050}, "espeak": {"voice": "en-us"}, "inference": {"noise_scale": 0, "length_scale": 1, "noise_w": 0}, "phoneme_id_map": {"_": [0], "^": [1], "$": [2], "ab": [3]}}"#,
         PhonemeError.invalidValue(key: "phoneme_id_map[ab]", expected: "a single-code-point key")),
        (#"{"phoneme_type": "text", "audio": {"sample_rate": 22050}}"#, PhonemeError.unsupportedPhonemeType("text")),
    ])
    func `malformed voice configs throw what is wrong`(json: String, expected: PhonemeError) {
        #expect(throws: expected) { try PiperVoiceConfig(json: Data(json.utf8)) }
    }

    @Test func `truncated JSON is reported as malformed`() {
        #expect { try PiperVoiceConfig(json: Data(#"{"audio": {"#.utf8)) } throws: { error in
            if case PhonemeError.malformedJSON = error { return true }
            return false
        }
    }

    @Test func `an unknown espeak voice throws`() throws {
        #expect(throws: PhonemeError.unknownEspeakVoice("xx-nowhere")) {
            try EspeakPhonemizer.shared.clauses("hello", voice: "xx-nowhere")
        }
    }
}
