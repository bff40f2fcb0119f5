/// One message of a conversation, as chat templates take it.
package struct ChatMessage: Sendable, Equatable {
    /// Who speaks; the raw value is the role name chat templates use.
    package enum Role: String, Sendable, Equatable {
        case system, user, assistant, tool
    }

    package var role: Role
    /// The message text, inserted into the template verbatim.
    package var content: String

    package init(role: Role, content: String) {
        self.role = role
        self.content = content
    }
}
