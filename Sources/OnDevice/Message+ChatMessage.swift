import Tokenizers

extension Message {
    /// The public form of an engine message (a tool loop's transcript), calls and tool name kept.
    init(_ m: ChatMessage) {
        let role: Role = switch m.role {
        case .system: .system
        case .user: .user
        case .assistant: .assistant
        case .tool: .tool
        }
        self.init(role: role, content: m.content, toolCalls: m.toolCalls.map { ToolCall(name: $0.name, arguments: $0.argumentsJSON) },
                  toolName: m.name)
    }
}
