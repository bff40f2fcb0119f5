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
    /// Encode a clip shorter than 30 s as its audio plus this many seconds, not Whisper's full
    /// 30 s window (whisper.cpp's `audio_ctx`): a 4 s clip transcribes about 4× faster, and the
    /// transcript may change (README: word error rate on the golden clips). nil: the full window.
    public var fittedWindowPadding: Double?
    /// Time every word (`TranscriptSegment.words`): one extra decoder pass per 30 s window
    /// aligns the text with the audio. Ignored by streams.
    public var wordTimestamps = false
    /// Decode at this temperature only (OpenAI's `temperature`, 0 to 1). Nil: faster-whisper's
    /// fallback, greedy first and then 0.2 … 1.0 for a window whose text looks wrong.
    public var temperature: Float?
    /// The Whisper model for this call (a catalog id or a model folder); nil uses
    /// `Configuration.transcriptionModel`. Several models serve one instance side by side.
    public var model: String?

    public init(language: String? = nil, beamSize: Int = 5, skipSilence: Bool = false, prompt: String? = nil) {
        self.language = language
        self.beamSize = beamSize
        self.skipSilence = skipSilence
        self.prompt = prompt
    }

    var engineOptions: TranscriptionOptions {
        var o = TranscriptionOptions(language: language, beamSize: beamSize)
        o.initialPrompt = prompt
        o.fittedWindowPadding = fittedWindowPadding
        o.wordTimestamps = wordTimestamps
        if let temperature { o.temperatures = [min(max(temperature, 0), 1)] }
        return o
    }
}
