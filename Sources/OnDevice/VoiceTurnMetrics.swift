/// Timings of one turn, in seconds.
public struct VoiceTurnMetrics: Sendable, Equatable, Codable {
    /// Seconds of user speech the turn answered.
    public var speechSeconds = 0.0
    /// Whisper's time on the utterance.
    public var transcribeSeconds = 0.0
    /// From the transcript to the language model's whole answer (the voice starts before).
    public var thinkSeconds = 0.0
    /// From the transcript to the first sentence of the answer being written: what the voice
    /// waits for before it can start.
    public var firstSentenceSeconds = 0.0
    /// From the end of the user's speech (as the VAD reported it) to the first audio chunk.
    public var firstAudioLatency = 0.0
    /// Seconds of reply audio produced.
    public var replySeconds = 0.0
    /// Whether speech (or `interrupt()`) cut the reply short.
    public var interrupted = false
}
