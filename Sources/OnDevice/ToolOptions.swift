/// How a chat may use its tools.
public struct ToolOptions: Sendable, Equatable {
    /// Most tool calls one `chat` makes. Once reached, the model answers without tools.
    public var maxToolCalls: Int = 4
    /// The model's first reply must be a tool call (for requests that surely need a tool).
    /// Later replies are free to answer.
    public var requireToolCall = false
    /// Throw `OnDeviceError.toolCallLimitReached` when the model still wants to call a tool
    /// after `maxToolCalls`, instead of returning the answer it gives without tools.
    public var failAtCallLimit = false

    public init() {}
}
