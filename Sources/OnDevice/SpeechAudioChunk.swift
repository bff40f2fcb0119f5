/// One sentence of a synthesis stream, ready to play.
public struct SpeechAudioChunk: Sendable, Equatable {
    /// Position of the sentence in the text.
    public var index: Int
    /// The sentence it speaks.
    public var text: String
    /// Mono samples in [-1, 1] (16-bit precision, as in `SpeechAudio`).
    public var samples: [Float]
    public var sampleRate: Int

    /// Length in seconds.
    public var duration: Double { Double(samples.count) / Double(max(1, sampleRate)) }
}
