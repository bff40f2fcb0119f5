/// One message of a conversation, as chat templates take it.
package struct ChatMessage: Sendable, Equatable {
    package enum Role: String, Sendable, Equatable {
        case system, user, assistant, tool
    }

    package var role: Role
    package var content: String

    package init(role: Role, content: String) {
        self.role = role
        self.content = content
    }
}
