import Speech

/// Options of `detectSpeech`.
public struct SpeechDetectionOptions: Sendable, Equatable {
    /// A frame with speech probability at or above this is speech (0 to 1).
    public var threshold: Float = 0.5
    /// Speech shorter than this is dropped.
    public var minSpeechMilliseconds = 250
    /// Silence must last this long to end a region.
    public var minSilenceMilliseconds = 100

    public init(threshold: Float = 0.5, minSpeechMilliseconds: Int = 250, minSilenceMilliseconds: Int = 100) {
        self.threshold = threshold
        self.minSpeechMilliseconds = minSpeechMilliseconds
        self.minSilenceMilliseconds = minSilenceMilliseconds
    }

    var engineOptions: VADOptions {
        var o = VADOptions()
        o.threshold = threshold
        o.minSpeechDurationMs = minSpeechMilliseconds
        o.minSilenceDurationMs = minSilenceMilliseconds
        return o
    }
}
