/// What `TextModel.completions` yields, in order: `admitted` once, then for each choice
/// `started`, its text as it is decoded, and `finished`.
public enum CompletionEvent: Sendable, Equatable {
    /// The model is loaded and the request holds a session. `sessionLimit` is how many requests
    /// this model can serve at once within the memory budget (its KV caches beside its weights).
    case admitted(sessionLimit: Int)
    /// Choice `choice` passed every check (prompt rendered and within the context, output
    /// grammar built) and generation begins.
    case started(choice: Int)
    /// Visible text, with its tokens' logprobs when `TextOptions.logprobs` asked for them.
    case text(String, tokens: [GeneratedToken])
    /// A choice's reply.
    case finished(Completion)
}
