import Audio

/// Mono audio: speech synthesized from a whole text, or a recording decoded to transcribe.
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

    /// Decodes a whole audio file held in memory: WAV, FLAC, Ogg Vorbis or Opus, or MP3,
    /// recognized from its bytes, channels mixed to mono, at its own sample rate. Bytes that are
    /// none of those (or longer than the decoder's limit) throw `invalidArgument` saying why.
    public init(decoding bytes: [UInt8]) throws {
        let clip: AudioClip
        do { clip = try AudioFile.decode(bytes) } catch {
            throw OnDeviceError(code: .invalidArgument, message: "not audio this build reads (WAV, FLAC, Ogg Vorbis or Opus, MP3): \(error)",
                                cause: error)
        }
        self.init(samples: clip.samples, sampleRate: clip.sampleRate)
    }

    init(samples: [Float], sampleRate: Int, metrics: SpeechMetrics) {
        self.samples = samples
        self.sampleRate = sampleRate
        self.metrics = metrics
    }

    /// Length in seconds.
    public var duration: Double { Double(samples.count) / Double(max(1, sampleRate)) }
}
