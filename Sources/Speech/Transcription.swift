import Foundation

/// One span of transcribed speech.
package struct TranscriptionSegment: Sendable, Equatable, Codable {
    /// 1-based index in the transcription.
    package var id: Int
    /// Mel frame (100 per second) where the 30 s window that produced it starts.
    package var seek: Int
    /// Start and end in seconds from the start of the audio.
    package var start: Double
    package var end: Double
    /// The text, with Whisper's leading space.
    package var text: String
    /// Output tokens, timestamp tokens included.
    package var tokens: [Int32]
    /// Sampling temperature of the window's accepted result.
    package var temperature: Float
    /// Average log-probability per token of the window's result (end-of-text included).
    package var averageLogProb: Double
    /// gzip compression ratio of the window's text.
    package var compressionRatio: Double
    /// Probability of `<|nospeech|>` at the start of the window.
    package var noSpeechProb: Double
    /// The words and when each is spoken, when `TranscriptionOptions.wordTimestamps` asked for
    /// them; empty otherwise.
    package var words: [TranscriptionWord]

    package init(id: Int, seek: Int, start: Double, end: Double, text: String, tokens: [Int32], temperature: Float,
                 averageLogProb: Double, compressionRatio: Double, noSpeechProb: Double, words: [TranscriptionWord] = []) {
        self.id = id
        self.seek = seek
        self.start = start
        self.end = end
        self.text = text
        self.tokens = tokens
        self.temperature = temperature
        self.averageLogProb = averageLogProb
        self.compressionRatio = compressionRatio
        self.noSpeechProb = noSpeechProb
        self.words = words
    }
}

/// One word of a segment and when it is spoken, found by aligning the decoder's attention with
/// the audio (`Transcriber+Words.swift`).
package struct TranscriptionWord: Sendable, Equatable, Codable {
    /// The word with its leading space and any punctuation attached; a segment's words
    /// concatenate to its text.
    package var word: String
    /// Start and end in seconds from the start of the audio.
    package var start: Double
    package var end: Double
    /// Mean probability of the word's tokens.
    package var probability: Double

    package init(word: String, start: Double, end: Double, probability: Double) {
        self.word = word
        self.start = start
        self.end = end
        self.probability = probability
    }
}

/// The result of transcribing a whole recording.
package struct Transcription: Sendable, Equatable {
    /// Segment texts joined, without the leading space.
    package var text: String
    /// Language code spoken (given or detected).
    package var language: String
    /// Probability of the detected language (1 when it was given).
    package var languageProbability: Double
    /// Length of the audio in seconds.
    package var duration: Double
    package var segments: [TranscriptionSegment]

    package init(language: String, languageProbability: Double, duration: Double, segments: [TranscriptionSegment]) {
        self.text = segments.map(\.text).joined().trimmingCharacters(in: .whitespaces)
        self.language = language
        self.languageProbability = languageProbability
        self.duration = duration
        self.segments = segments
    }
}
