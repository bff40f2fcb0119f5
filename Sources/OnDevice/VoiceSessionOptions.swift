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
