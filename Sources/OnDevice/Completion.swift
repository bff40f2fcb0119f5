/// One reply of a `CompletionRequest`.
public struct Completion: Sendable, Equatable {
    /// Which of the request's `choices` this is.
    public var choice: Int
    /// The visible reply: the text before any call; for JSON output, the document.
    public var text: String
    /// The calls the reply made (tool output only), in order.
    public var toolCalls: [Message.ToolCall]
    /// Why the reply ended; a reply that made calls ended `.stop`.
    public var finishReason: FinishReason
    /// Metrics, the prompt's and the reply's token ids, and logprobs when asked for.
    public var result: TextResult
}
