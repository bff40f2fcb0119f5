/// Who said a chat message.
public enum Role: String, Sendable, Equatable, Codable {
    case system, user, assistant, tool
}
