/// Voice activity over a whole recording: the regions of speech and the per-frame evidence
/// they were cut from.
public struct SpeechActivity: Sendable, Equatable {
    /// The regions `detectSpeech` returns for the same audio and options.
    public var regions: [SpeechRegion]
    /// Speech probability (0 to 1) of each frame of `frameSeconds`, from the start.
    public var frameProbabilities: [Float]
    /// Seconds of the analysed audio.
    public var duration: Double
    /// The detector's frame: 512 samples at 16 kHz.
    public static let frameSeconds = 0.032
    /// The rate the detector analyses at; region bounds fall on whole samples of it.
    public static let sampleRate = 16_000
}
