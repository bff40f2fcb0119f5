/// How a live transcription went.
public struct LiveTranscriptMetrics: Sendable, Equatable {
    /// Seconds of audio received.
    public var audioSeconds: Double
    /// Seconds spent transcribing.
    public var computeSeconds: Double
    /// Whisper passes run (one per partial or settled update).
    public var passes: Int
    /// Seconds from a chunk's arrival to the partial text that covers it: the mean and the worst.
    public var meanPartialLatency: Double
    public var maxPartialLatency: Double
}
