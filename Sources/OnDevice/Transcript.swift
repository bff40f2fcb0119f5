import Speech

/// A transcribed recording.
public struct Transcript: Sendable, Equatable {
    /// The whole text.
    public var text: String
    /// Language code spoken (given or detected).
    public var language: String
    /// How sure language detection was (1 when the language was given or the model speaks one).
    public var languageProbability: Double
    /// Length of the audio in seconds.
    public var duration: Double
    public var segments: [TranscriptSegment]

    /// Subtitle files a transcript is written as.
    public enum SubtitleFormat: Sendable, Equatable, CaseIterable {
        /// SubRip: numbered cues, `00:00:01,500`.
        case srt
        /// WebVTT: a `WEBVTT` header, `00:00:01.500`.
        case vtt
    }

    /// Every segment as a cue, its text without Whisper's leading space.
    public func subtitles(_ format: SubtitleFormat) -> String {
        Transcription.subtitles(cues: segments.map { (start: $0.start, end: $0.end, text: $0.text) }, format == .srt ? .srt : .vtt)
    }

    /// `seconds` as a cue time: `HH:MM:SS,mmm` for SubRip, `HH:MM:SS.mmm` for WebVTT.
    public static func timestamp(_ seconds: Double, _ format: SubtitleFormat) -> String {
        Transcription.timestamp(seconds, comma: format == .srt)
    }
}

extension Transcript {
    init(_ t: Transcription) {
        self.init(text: t.text, language: t.language, languageProbability: t.languageProbability, duration: t.duration,
                  segments: t.segments.map(TranscriptSegment.init))
    }
}
