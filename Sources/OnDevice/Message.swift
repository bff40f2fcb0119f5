import Tokenizers

/// One chat message.
///
/// An assistant turn may carry the tool calls it made, and a `tool` turn the name of the tool it
/// answers for, so a conversation with tools (a `ToolChatResult.transcript`, or one an app ran
/// itself) can be passed back to `chat` and the model reads its calls where its chat template
/// puts them.
public struct Message: Sendable, Equatable, Codable {
    /// A call an assistant turn made: the tool's name and its arguments as JSON object text.
    public struct ToolCall: Sendable, Equatable, Codable {
        public var name: String
        public var arguments: String

        public init(name: String, arguments: String) {
            self.name = name
            self.arguments = arguments
        }
    }

    public var role: Role
    public var content: String
    /// The calls an assistant turn made (empty for other turns).
    public var toolCalls: [ToolCall]
    /// The tool a `tool` turn answers for, when known.
    public var toolName: String?

    public init(role: Role, content: String, toolCalls: [ToolCall] = [], toolName: String? = nil) {
        self.role = role
        self.content = content
        self.toolCalls = toolCalls
        self.toolName = toolName
    }

    public static func system(_ text: String) -> Message { Message(role: .system, content: text) }
    public static func user(_ text: String) -> Message { Message(role: .user, content: text) }
    public static func assistant(_ text: String, toolCalls: [ToolCall] = []) -> Message {
        Message(role: .assistant, content: text, toolCalls: toolCalls)
    }
    /// A tool's result, answering the call to `name`.
    public static func tool(_ result: String, name: String? = nil) -> Message { Message(role: .tool, content: result, toolName: name) }

    private enum CodingKeys: String, CodingKey { case role, content, toolCalls, toolName }

    /// Reads messages stored before calls and tool names were kept, too.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        role = try c.decode(Role.self, forKey: .role)
        content = try c.decode(String.self, forKey: .content)
        toolCalls = try c.decodeIfPresent([ToolCall].self, forKey: .toolCalls) ?? []
        toolName = try c.decodeIfPresent(String.self, forKey: .toolName)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(role, forKey: .role)
        try c.encode(content, forKey: .content)
        if !toolCalls.isEmpty { try c.encode(toolCalls, forKey: .toolCalls) }
        try c.encodeIfPresent(toolName, forKey: .toolName)
    }

    var chatMessage: ChatMessage {
        let r: ChatMessage.Role = switch role {
        case .system: .system
        case .user: .user
        case .assistant: .assistant
        case .tool: .tool
        }
        return ChatMessage(role: r, content: content, toolCalls: toolCalls.map { ChatToolCall(name: $0.name, argumentsJSON: $0.arguments) },
                           name: toolName)
    }
}
