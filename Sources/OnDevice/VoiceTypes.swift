/// What a voice session reports, in order of a turn: `listening`, `speechStarted`,
/// `speechEnded`, `userTranscribed`, `thinking`, then `speaking`… (one per sentence) with
/// `agentResponse` among them, `turnCompleted`, then `listening` again once the reply has
/// played out.
///
/// The voice does not wait for the whole answer: each sentence is spoken as soon as the
/// language model has written it, while it writes the next. So the first `speaking` chunks
/// may come before `agentResponse`, which carries the whole answer once the model has
/// finished it (each chunk's `text` is its sentence).
public enum VoiceEvent: Sendable, Equatable {
    /// Waiting for the user (at the start, after a reply, after a barge-in or `interrupt()`).
    case listening
    /// Voice activity began in the input.
    case speechStarted
    /// The user stopped talking; the turn is being answered.
    case speechEnded
    /// What the user said.
    case userTranscribed(String)
    /// The language model is writing the answer.
    case thinking
    /// The whole answer the agent speaks, once the language model has finished it (the first
    /// sentences may already be speaking).
    case agentResponse(String)
    /// One sentence of the spoken answer, ready to play.
    case speaking(SpeechAudioChunk)
    /// The reply was spoken whole; its timings.
    case turnCompleted(VoiceTurnMetrics)
    /// A turn failed (the session goes on listening); the message says why.
    case error(String)
}

/// Timings of one turn, in seconds.
public struct VoiceTurnMetrics: Sendable, Equatable, Codable {
    /// Seconds of user speech the turn answered.
    public var speechSeconds = 0.0
    /// Whisper's time on the utterance.
    public var transcribeSeconds = 0.0
    /// From the transcript to the language model's whole answer (the voice starts before).
    public var thinkSeconds = 0.0
    /// From the transcript to the first sentence of the answer being written: what the voice
    /// waits for before it can start.
    public var firstSentenceSeconds = 0.0
    /// From the end of the user's speech (as the VAD reported it) to the first audio chunk.
    public var firstAudioLatency = 0.0
    /// Seconds of reply audio produced.
    public var replySeconds = 0.0
    /// Whether speech (or `interrupt()`) cut the reply short.
    public var interrupted = false
}

/// How a voice session listens, thinks and speaks.
public struct VoiceSessionOptions: Sendable, Equatable {
    /// The system prompt of the conversation.
    public var instructions = "You are a helpful voice assistant. Answer in one or two short sentences."
    /// Generation options of the answers (greedy and short by default: they are spoken).
    public var text = TextOptions()
    /// How answers are spoken.
    public var speech = SpeechOptions()
    /// Language of the user's speech for Whisper (nil detects it with multilingual models).
    public var language: String? = "en"
    /// Speech probability above which a frame is speech (Silero VAD).
    public var speechThreshold: Float = 0.5
    /// Silence that ends the user's turn, in milliseconds.
    public var endOfTurnSilenceMilliseconds = 600
    /// Whether speech while the agent speaks stops the reply (barge-in).
    public var bargeIn = true

    public init() {
        text.temperature = 0
        text.maxTokens = 80
    }
}
