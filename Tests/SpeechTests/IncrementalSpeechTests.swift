import Foundation
import Phonemes
import Speech
import Platform
import Synchronization
import TestSupport
import Testing

/// Speech for text that is still being written (a language model's answer as it streams):
/// the sentence cuts and the audio equal synthesizing the whole text, and cancelling stops it.
@Suite struct IncrementalSpeechTests {
    static let answer = "Sure! The weather today is sunny, with a light breeze. It's 3.5 degrees warmer than "
        + "yesterday, so Mr. Smith says: wear a hat. I think that's all? Yes. A"

    /// `text` cut into pieces the way a tokenizer might: words with their leading space, and
    /// punctuation on its own.
    static func tokens(_ text: String) -> [String] {
        var pieces: [String] = []
        var current = ""
        for ch in text {
            if ch == " " || ch.isPunctuation {
                if !current.isEmpty { pieces.append(current) }
                current = ch.isPunctuation ? "" : " "
                if ch.isPunctuation { pieces.append(String(ch)) }
            } else {
                current.append(ch)
            }
        }
        if !current.isEmpty { pieces.append(current) }
        return pieces
    }

    @Test func `streamed text is cut into the sentences of the whole text, all but the last before it ends`() throws {
        let config = try PiperPhonemizerTests.joeConfig()
        let phonemizer = PiperPhonemizer(config: config)
        let whole = try phonemizer.sentences(Self.answer)
        var splitter = SentenceSplitter(phonemizer: phonemizer)
        var streamed: [PhonemizedSentence] = []
        var closedAfter: [Int] = []  // pieces appended when each sentence came out
        for (n, piece) in Self.tokens(Self.answer).enumerated() {
            for sentence in try splitter.append(piece) {
                streamed.append(sentence)
                closedAfter.append(n)
            }
        }
        let beforeFinish = streamed.count
        streamed += try splitter.finish()
        #expect(streamed == whole)
        #expect(whole.count == 7, "\(whole.map(\.text))")
        #expect(beforeFinish == whole.count - 1, "only the last sentence waits for the end of the text")
        #expect(Set(closedAfter).count == closedAfter.count, "one sentence per piece: each closes when the next starts")
        // "3." ends a piece but not a sentence: espeak reads on into "3.5".
        #expect(whole.contains { $0.text.contains("3.5 degrees") })
    }

    @Test func `a one-letter last clause is read and does not leak into the next text`() throws {
        let phonemizer = PiperPhonemizer(config: try PiperPhonemizerTests.joeConfig())
        let fresh = try phonemizer.sentences("Hello you.")
        #expect(try phonemizer.sentences("Hi there. I").count == 2)
        #expect(try phonemizer.sentences("Hello you.") == fresh)
        #expect(try phonemizer.sentences("Hi there, I").first?.text == "Hi there, I")
        #expect(try phonemizer.sentences("Hello you.") == fresh)
    }

    @Test func `streamed text gives the chunks of synthesizing it whole`() async throws {
        let synthesizer = try SpeechSynthesizerTests.synthesizer()
        let text = "Hello there. How are you today? Fine, thanks."
        var whole: [SpeechChunk] = []
        _ = try synthesizer.run(text, options: SpeechSynthesizerTests.deterministic) { whole.append($0) }
        let chunks = Locked<[SpeechChunk]>([])
        let speech = IncrementalSpeech(synthesizer: synthesizer, options: SpeechSynthesizerTests.deterministic) { chunk in
            chunks.withLock { $0.append(chunk) }
        }
        for piece in Self.tokens(text) { try await speech.append(piece) }
        #expect(try await speech.finish() == 1)
        let metrics = try await speech.spoken()
        let streamed = chunks.withLock { $0 }
        #expect(streamed.map(\.index) == [0, 1, 2])
        #expect(streamed.map(\.text) == whole.map(\.text))
        #expect(streamed.map(\.samples) == whole.map(\.samples))
        #expect(metrics.sentences == 3 && metrics.audioSeconds == whole.reduce(0) { $0 + $1.audioSeconds })
    }

    /// The writer may run one sentence ahead of the voice: queuing the third sentence waits for
    /// the first one's audio, so a writer that has written three sentences has heard one.
    @Test func `the writer runs at most one sentence ahead of the voice`() async throws {
        let synthesizer = try SpeechSynthesizerTests.synthesizer()
        let spoken = Atomic<Int>(0)
        let speech = IncrementalSpeech(synthesizer: synthesizer, options: SpeechSynthesizerTests.deterministic) { _ in
            spoken.add(1, ordering: .sequentiallyConsistent)
        }
        #expect(try await speech.append("One. Two. Three. Four") == 3)
        #expect(spoken.load(ordering: .sequentiallyConsistent) >= 1)
        try await speech.finish()
        _ = try await speech.spoken()
        #expect(spoken.load(ordering: .sequentiallyConsistent) == 4)
    }

    /// Taking turns (for when the model and the voice would share cores), `append` returns
    /// once the voice has spoken what it closed.
    @Test func `alternating, the writer waits while the voice speaks what it wrote`() async throws {
        let synthesizer = try SpeechSynthesizerTests.synthesizer()
        let spoken = Atomic<Int>(0)
        let speech = IncrementalSpeech(synthesizer: synthesizer, options: SpeechSynthesizerTests.deterministic,
                                       pacing: .alternate) { _ in spoken.add(1, ordering: .sequentiallyConsistent) }
        #expect(try await speech.append("One. Two") == 1)
        #expect(spoken.load(ordering: .sequentiallyConsistent) == 1)
        #expect(try await speech.append(". Three. Four") == 2)
        #expect(spoken.load(ordering: .sequentiallyConsistent) == 3)
        #expect(try await speech.finish() == 1)
        #expect(try await speech.spoken().sentences == 4)
        #expect(spoken.load(ordering: .sequentiallyConsistent) == 4)
    }

    @Test func `cancelling stops the voice before its next sentence and a waiting writer throws`() async throws {
        let synthesizer = try SpeechSynthesizerTests.synthesizer()
        let spoken = Atomic<Int>(0)
        let handle = Locked<IncrementalSpeech?>(nil)
        // Cancels from the first chunk: "Two." is queued by then, "Three." waits for room.
        let speech = IncrementalSpeech(synthesizer: synthesizer, options: SpeechSynthesizerTests.deterministic) { _ in
            spoken.add(1, ordering: .sequentiallyConsistent)
            handle.withLock { $0?.cancel() }
        }
        handle.withLock { $0 = speech }
        await #expect(throws: SpeechError.cancelled) { try await speech.append("One. Two. Three. Four") }
        await #expect(throws: SpeechError.cancelled) { try await speech.spoken() }
        #expect(spoken.load(ordering: .sequentiallyConsistent) == 1)
        await #expect(throws: SpeechError.cancelled) { try await speech.append(" More. Text") }
    }
}
