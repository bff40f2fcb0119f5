/// The outcome of a chat with tools.
public struct ToolChatResult: Sendable, Equatable {
    /// The final answer.
    public var text: String
    /// Every tool call, in order.
    public var toolCalls: [ToolInvocation]
    /// The whole conversation as the model saw it: the tools' system prompt, each assistant
    /// turn with its calls, each `tool` result, and the final answer.
    public var transcript: [Message]
    /// The model still wanted to call a tool when `maxToolCalls` was reached.
    public var reachedCallLimit: Bool
    /// Figures summed over every model call (`modelCalls` counts the assistant turns).
    public var metrics: TextMetrics
    /// Each model call's own figures, in order (one per assistant turn).
    public var callMetrics: [TextMetrics] = []
}
