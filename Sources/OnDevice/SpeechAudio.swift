/// Speech synthesized from a whole text.
public struct SpeechAudio: Sendable, Equatable {
    /// Mono samples in [-1, 1], each sentence normalized to full scale and quantized to 16 bits
    /// exactly as Piper writes its WAV files.
    public var samples: [Float]
    /// Samples per second (22,050 for Piper medium voices).
    public var sampleRate: Int
    public var metrics: SpeechMetrics

    /// Audio assembled by the caller (a voice session's spoken chunks, say), to encode or save;
    /// its metrics are empty.
    public init(samples: [Float], sampleRate: Int) {
        self.init(samples: samples, sampleRate: sampleRate, metrics: SpeechMetrics())
    }

    init(samples: [Float], sampleRate: Int, metrics: SpeechMetrics) {
        self.samples = samples
        self.sampleRate = sampleRate
        self.metrics = metrics
    }

    /// Length in seconds.
    public var duration: Double { Double(samples.count) / Double(max(1, sampleRate)) }
}
