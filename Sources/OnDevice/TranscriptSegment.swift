/// One timed span of a transcript.
public struct TranscriptSegment: Sendable, Equatable {
    /// Seconds from the start of the audio.
    public var start: Double
    public var end: Double
    public var text: String
}
