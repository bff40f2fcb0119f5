/// What a text stream yields: text as it is generated, progress of multi-step work, and one
/// final event with the whole result.
public enum TextEvent: Sendable, Equatable {
    /// New text (append it to what came before).
    case partial(String)
    /// A step of a multi-step op finished.
    case progress(OpProgress)
    /// The op finished (also after cancellation, with `finishReason == .cancelled`).
    case finished(TextResult)
}
