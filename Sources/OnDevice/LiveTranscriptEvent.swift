/// What live transcription yields.
public enum LiveTranscriptEvent: Sendable, Equatable {
    /// The not-yet-settled text after all final text; each partial replaces the previous one.
    case partial(String)
    /// Settled text, never revised, with its approximate time span in seconds.
    case final(String, start: Double, end: Double)
    /// The last event: how the stream went.
    case finished(LiveTranscriptMetrics)
}
