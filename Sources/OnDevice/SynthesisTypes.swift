/// How a text is spoken. A scale left nil takes the voice's own default (its `.onnx.json`).
public struct SpeechOptions: Sendable, Equatable {
    /// Variation of the voice's timbre (Piper `noise_scale`; 0 = deterministic).
    public var noiseScale: Float?
    /// Speaking slowness (Piper `length_scale`; 1 = the voice's pace, 2 = half as fast).
    public var lengthScale: Float?
    /// Variation of phoneme durations (Piper `noise_w`; 0 = deterministic).
    public var noiseW: Float?
    /// Seeds the variation, so the same text and seed give the same audio.
    public var seed: UInt64

    public init(noiseScale: Float? = nil, lengthScale: Float? = nil, noiseW: Float? = nil, seed: UInt64 = 0) {
        self.noiseScale = noiseScale
        self.lengthScale = lengthScale
        self.noiseW = noiseW
        self.seed = seed
    }
}

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

/// What `synthesisStream` yields: audio sentence by sentence, then the metrics once.
public enum SpeechSynthesisEvent: Sendable, Equatable {
    case audio(SpeechAudioChunk)
    case finished(SpeechMetrics)
}
