/// A span of speech found by voice activity detection, in seconds.
public struct SpeechRegion: Sendable, Equatable {
    public var start: Double
    public var end: Double
}
