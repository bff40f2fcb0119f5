import StructuredOutput
import Tokenizers
import Tools

/// How a conversation with tools is written for a template, in one place for the tool loop and
/// the core. A template that lays tools out itself (Qwen's) gets assistant calls structured and
/// tool results as they are. For any other, the tools are described in the system message, a
/// call becomes its Hermes text (`<tool_call>…</tool_call>`) and a result is wrapped in
/// `<tool_response>`. Every step is idempotent, so a conversation already written for such a
/// template (the tool loop's) passes through unchanged.
package enum ToolConversation {
    /// The conversation with `text` appended to its system message (one is added if missing).
    package static func addingSystem(_ text: String, to messages: [ChatMessage]) -> [ChatMessage] {
        var out = messages
        if let first = out.first, first.role == .system {
            guard !first.content.contains(text) else { return out }
            out[0].content = first.content.isEmpty ? text : first.content + "\n\n" + text
        } else {
            out.insert(ChatMessage(role: .system, content: text), at: 0)
        }
        return out
    }

    /// The conversation with the tools described in its system message.
    package static func described(_ messages: [ChatMessage], tools: ToolRegistry) -> [ChatMessage] {
        tools.isEmpty ? messages : addingSystem(tools.systemPrompt, to: messages)
    }

    /// The conversation as a template of this kind can read it: structured calls and raw results
    /// written as text for a template that does not lay tools out; tool results as user turns for
    /// a template without a tool role (Gemma).
    package static func adapted(_ messages: [ChatMessage], rendersTools: Bool, hasToolRole: Bool) -> [ChatMessage] {
        messages.map { m in
            var m = m
            if !rendersTools {
                if m.role == .assistant && !m.toolCalls.isEmpty {
                    m = ChatMessage(role: .assistant, content: canonical(content: m.content, calls: m.toolCalls))
                } else if m.role == .tool && !isWrapped(m.content) {
                    m = ChatMessage(role: .tool, content: ToolRegistry.response(name: m.name, result: m.content, isError: false))
                }
            }
            if !hasToolRole && m.role == .tool { m = ChatMessage(role: .user, content: m.content) }
            return m
        }
    }

    /// An assistant turn's text followed by each call in its canonical form with the closing tag.
    package static func canonical(content: String, calls: [ChatToolCall]) -> String {
        var parts = content.isEmpty ? [] : [content]
        for call in calls {
            let arguments = (try? JSONValue(parsing: call.argumentsJSON)) ?? .object([])
            parts.append("\(ToolRegistry.callOpen)\n\(ToolCall(name: call.name, arguments: arguments).json.serialized)\n\(ToolRegistry.callClose)")
        }
        return parts.joined(separator: "\n")
    }

    private static func isWrapped(_ content: String) -> Bool {
        content.hasPrefix("<tool_response>\n") && content.hasSuffix("\n</tool_response>")
    }
}
