/// What a chat-with-tools stream yields.
public enum ToolChatEvent: Sendable, Equatable {
    /// New answer text (append it to what came before). Call text is not passed on.
    case partial(String)
    /// The model called a tool; it runs next. Nil name and arguments: the call did not parse.
    case toolCall(name: String?, arguments: ToolArguments?)
    /// A call finished (successfully or not).
    case toolResult(ToolInvocation)
    /// The chat finished.
    case finished(ToolChatResult)
}
