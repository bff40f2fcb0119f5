/// One word of a transcript and when it is spoken.
public struct TranscriptWord: Sendable, Equatable {
    /// The word with its leading space and attached punctuation; a segment's words concatenate
    /// to its text.
    public var word: String
    /// Seconds from the start of the audio.
    public var start: Double
    public var end: Double
    /// Mean probability of the word's tokens.
    public var probability: Double
}
