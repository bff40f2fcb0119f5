/// Parameters of speech segmentation; defaults are silero-vad 6.2.3's `get_speech_timestamps`.
package struct VADOptions: Sendable, Equatable {
    /// A frame with probability at or above this is speech.
    package var threshold: Float = 0.5
    /// Inside speech, a frame below this is silence; nil means max(threshold − 0.15, 0.01).
    package var negativeThreshold: Float?
    /// Segments shorter than this are dropped.
    package var minSpeechDurationMs = 250
    /// Longer speech is split (at the longest silence seen inside it, if any).
    package var maxSpeechDurationS = Double.infinity
    /// Silence must last this long to end a segment.
    package var minSilenceDurationMs = 100
    /// Segments are widened by this much on each side (less between close segments).
    package var speechPadMs = 30
    /// A silence this long inside speech is a candidate cut point for over-long speech.
    package var minSilenceAtMaxSpeechMs = 98
    /// Cut over-long speech at its longest silence (else at the last one).
    package var useMaxPossibleSilenceAtMaxSpeech = true

    package init() {}

    var exitThreshold: Float { negativeThreshold ?? max(threshold - 0.15, 0.01) }
}

/// A span of speech, in samples of 16 kHz audio.
package struct SpeechSegment: Sendable, Equatable, Codable {
    package var start: Int
    package var end: Int

    package init(start: Int, end: Int) {
        self.start = start
        self.end = end
    }

    package var startSeconds: Double { Double(start) / 16_000 }
    package var endSeconds: Double { Double(end) / 16_000 }
}
