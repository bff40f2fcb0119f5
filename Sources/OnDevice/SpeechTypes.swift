import Speech

/// Options of `transcribe`.
public struct TranscribeOptions: Sendable, Equatable {
    /// Language code of the speech (`"en"`); nil detects it (multilingual models) or uses English.
    public var language: String?
    /// Beam width; 1 is greedy decoding (faster). Streams always decode greedily.
    public var beamSize: Int = 5
    /// Runs voice activity detection first and transcribes only the speech it finds.
    public var skipSilence = false
    /// Text the speech is likely to continue (names, spelling), given to Whisper as a prompt.
    public var prompt: String?

    public init(language: String? = nil, beamSize: Int = 5, skipSilence: Bool = false, prompt: String? = nil) {
        self.language = language
        self.beamSize = beamSize
        self.skipSilence = skipSilence
        self.prompt = prompt
    }

    var engineOptions: TranscriptionOptions {
        var o = TranscriptionOptions(language: language, beamSize: beamSize)
        o.initialPrompt = prompt
        return o
    }
}

/// A transcribed recording.
public struct Transcript: Sendable, Equatable {
    /// The whole text.
    public var text: String
    /// Language code spoken (given or detected).
    public var language: String
    /// Length of the audio in seconds.
    public var duration: Double
    public var segments: [TranscriptSegment]
}

/// One timed span of a transcript.
public struct TranscriptSegment: Sendable, Equatable {
    /// Seconds from the start of the audio.
    public var start: Double
    public var end: Double
    public var text: String
}

/// What live transcription yields.
public enum LiveTranscriptEvent: Sendable, Equatable {
    /// The not-yet-settled text after all final text; each partial replaces the previous one.
    case partial(String)
    /// Settled text, never revised, with its approximate time span in seconds.
    case final(String, start: Double, end: Double)
    /// The last event: seconds of audio received and seconds spent transcribing.
    case finished(audioSeconds: Double, computeSeconds: Double)
}

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

/// A span of speech found by voice activity detection, in seconds.
public struct SpeechRegion: Sendable, Equatable {
    public var start: Double
    public var end: Double
}

extension Transcript {
    init(_ t: Transcription) {
        self.init(text: t.text, language: t.language, duration: t.duration,
                  segments: t.segments.map { TranscriptSegment(start: $0.start, end: $0.end, text: $0.text) })
    }
}
