import Speech

/// A transcribed recording.
public struct Transcript: Sendable, Equatable {
    /// The whole text.
    public var text: String
    /// Language code spoken (given or detected).
    public var language: String
    /// Length of the audio in seconds.
    public var duration: Double
    public var segments: [TranscriptSegment]
}

extension Transcript {
    init(_ t: Transcription) {
        self.init(text: t.text, language: t.language, duration: t.duration,
                  segments: t.segments.map { s in
                      TranscriptSegment(start: s.start, end: s.end, text: s.text, words: s.words.map {
                          TranscriptWord(word: $0.word, start: $0.start, end: $0.end, probability: $0.probability)
                      })
                  })
    }
}
