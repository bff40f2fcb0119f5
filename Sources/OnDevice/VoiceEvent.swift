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
