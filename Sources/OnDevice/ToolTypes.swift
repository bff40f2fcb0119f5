import Tokenizers
import Tools

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

/// One tool call the model made, and what came back.
public struct ToolInvocation: Sendable, Equatable {
    /// The tool called; nil when the model's call did not parse.
    public var name: String?
    /// The arguments; nil when the call did not parse.
    public var arguments: ToolArguments?
    /// The tool's result, or the error text the model was given instead.
    public var result: String
    /// Why the call failed (`unknownTool`, `invalidToolArguments`, `malformedToolCall`,
    /// `toolFailed`); nil when it succeeded. A failed call does not end the chat: the model
    /// reads the error and carries on.
    public var error: OnDeviceError?
}

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
}

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

extension Message {
    init(_ m: ChatMessage) {
        let role: Role = switch m.role {
        case .system: .system
        case .user: .user
        case .assistant: .assistant
        case .tool: .tool
        }
        self.init(role: role, content: m.content)
    }
}

extension ToolInvocation {
    /// The public form of an engine record, its failure typed by re-checking the call against
    /// the tools (the loop tells the model in words; apps get the case).
    init(_ record: ToolCallRecord, registry: ToolRegistry) {
        name = record.call?.name
        arguments = record.call.map { ToolArguments($0.arguments) }
        result = record.result
        error = Self.failure(of: record, registry: registry)
    }

    static func failure(of record: ToolCallRecord, registry: ToolRegistry) -> OnDeviceError? {
        guard record.isError else { return nil }
        guard let call = record.call else { return .malformedToolCall(reason: record.result) }
        guard let tool = registry.tool(named: call.name) else {
            return .unknownTool(name: call.name, available: registry.tools.map(\.name))
        }
        do {
            try tool.parameters.validate(call.arguments)
        } catch {
            return .invalidToolArguments(tool: call.name, reason: error.description)
        }
        return .toolFailed(tool: call.name, reason: record.result)
    }
}
