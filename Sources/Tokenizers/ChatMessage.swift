import Jinja

/// One message of a conversation, as chat templates take it.
package struct ChatMessage: Sendable, Equatable {
    /// Who speaks; the raw value is the role name chat templates use.
    package enum Role: String, Sendable, Equatable {
        case system, user, assistant, tool
    }

    package var role: Role
    /// The message text, inserted into the template verbatim.
    package var content: String
    /// The calls an assistant message makes, for templates that lay tool calls out themselves.
    package var toolCalls: [ChatToolCall]
    /// The tool a `tool` message answers for, when the caller knows it (templates do not see it;
    /// it names the result for models that read tool results as text).
    package var name: String?

    package init(role: Role, content: String, toolCalls: [ChatToolCall] = [], name: String? = nil) {
        self.role = role
        self.content = content
        self.toolCalls = toolCalls
        self.name = name
    }

    /// The message as transformers passes it to a template: `role`, `content`, and
    /// `tool_calls` in OpenAI's shape (`{"type": "function", "function": {"name", "arguments"}}`,
    /// the arguments an object) when there are calls.
    func jinjaValue() throws(TokenizerError) -> JinjaValue {
        var object: JinjaObject = ["role": .string(role.rawValue), "content": .string(content)]
        if !toolCalls.isEmpty {
            var calls: [JinjaValue] = []
            for call in toolCalls {
                let arguments: JinjaValue
                do { arguments = try JinjaValue(json: call.argumentsJSON) } catch {
                    throw .chatTemplateFailed(detail: "the arguments of a call to \(call.name) are not JSON")
                }
                let function: JinjaObject = ["name": .string(call.name), "arguments": arguments]
                calls.append(.object(["type": .string("function"), "function": .object(function)]))
            }
            object["tool_calls"] = .array(calls)
        }
        return .object(object)
    }
}

/// A tool call inside an assistant message: the tool's name and its arguments as JSON text.
package struct ChatToolCall: Sendable, Equatable {
    package var name: String
    package var argumentsJSON: String

    package init(name: String, argumentsJSON: String) {
        self.name = name
        self.argumentsJSON = argumentsJSON
    }
}
