import Tokenizers

/// One chat message.
public struct Message: Sendable, Equatable, Codable {
    public var role: Role
    public var content: String

    public init(role: Role, content: String) {
        self.role = role
        self.content = content
    }

    public static func system(_ text: String) -> Message { Message(role: .system, content: text) }
    public static func user(_ text: String) -> Message { Message(role: .user, content: text) }
    public static func assistant(_ text: String) -> Message { Message(role: .assistant, content: text) }

    var chatMessage: ChatMessage {
        let r: ChatMessage.Role = switch role {
        case .system: .system
        case .user: .user
        case .assistant: .assistant
        case .tool: .tool
        }
        return ChatMessage(role: r, content: content)
    }
}
