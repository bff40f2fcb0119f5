/// Speech synthesized from a whole text.
public struct SpeechAudio: Sendable, Equatable {
    /// Mono samples in [-1, 1], each sentence normalized to full scale and quantized to 16 bits
    /// exactly as Piper writes its WAV files.
    public var samples: [Float]
    /// Samples per second (22,050 for Piper medium voices).
    public var sampleRate: Int
    public var metrics: SpeechMetrics

    /// Length in seconds.
    public var duration: Double { Double(samples.count) / Double(max(1, sampleRate)) }
}
