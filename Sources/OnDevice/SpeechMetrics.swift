/// Timing of one synthesis.
public struct SpeechMetrics: Sendable, Equatable, Codable {
    public var sentences = 0
    /// Seconds of audio produced.
    public var audioSeconds = 0.0
    /// Seconds spent phonemizing and running the voice.
    public var computeSeconds = 0.0
    /// Seconds until the first sentence's audio was ready.
    public var firstAudioSeconds = 0.0

    /// Compute seconds per audio second (below 1 is faster than real time).
    public var realTimeFactor: Double { audioSeconds > 0 ? computeSeconds / audioSeconds : 0 }
}
