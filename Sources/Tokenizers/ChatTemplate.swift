import Jinja

/// Renders a conversation with the model's own chat template: the GGUF's
/// `tokenizer.chat_template` runs in the Jinja interpreter (`Jinja` target), as transformers
/// renders it, with the tokenizer's special tokens as `bos_token` / `eos_token`.
///
/// The render keeps track of which text the template wrote itself: `prompt(...)` returns those
/// ranges with the text, and `Tokenizer.encode(_:)` makes control tokens only there, so a
/// message that contains `<|im_start|>` cannot open a turn.
package struct ChatTemplate: Sendable {
    /// The template's family, recognised from its markers. The interpreter renders every
    /// template; the family only tells callers how the template treats roles (Gemma's has no
    /// system or tool role).
    package enum Family: Sendable, Equatable {
        /// `<|im_start|>role\ncontent<|im_end|>\n` (SmolLM2, Qwen, …). `defaultSystemPrompt` is the
        /// system message the template inserts when the conversation has none.
        case chatML(defaultSystemPrompt: String?)
        /// `<start_of_turn>user\ncontent<end_of_turn>\n`, assistant turns as `model`, a system
        /// message folded into the first user turn (Gemma).
        case gemma
        /// Any other template.
        case other
    }

    /// The recognised family.
    package let family: Family
    /// The compiled template; nil for a hand-rendered family (`init(family:)`, tests).
    let jinja: JinjaTemplate?
    let bosToken: String?
    let eosToken: String?

    /// Compiles a GGUF `tokenizer.chat_template`; nil or empty text → `.noChatTemplate`, a
    /// template the interpreter cannot parse → `.chatTemplateFailed` naming the construct.
    package init(metadataTemplate: String?, bosToken: String? = nil, eosToken: String? = nil) throws(TokenizerError) {
        guard let template = metadataTemplate, !template.isEmpty else { throw .noChatTemplate }
        do { jinja = try JinjaTemplate(template) } catch { throw .chatTemplateFailed(detail: Self.describe(error)) }
        self.bosToken = bosToken
        self.eosToken = eosToken
        if template.contains("<|im_start|>") {
            family = .chatML(defaultSystemPrompt: Self.defaultSystemPrompt(in: template))
        } else if template.contains("<start_of_turn>") {
            family = .gemma
        } else {
            family = .other
        }
    }

    /// A template of a known family rendered without Jinja (for tests of the layers above).
    package init(family: Family) {
        self.family = family
        jinja = nil
        bosToken = nil
        eosToken = nil
    }

    /// Whether the template itself lays out tool definitions (reads `tools`), so callers pass
    /// the tools to it instead of describing them in a system message.
    package var rendersTools: Bool {
        guard let source = jinja?.source else { return false }
        return source.contains("tools")
    }

    /// The prompt text (what jinja2 renders for the same template and messages).
    package func render(messages: [ChatMessage], tools: [String]? = nil, addGenerationPrompt: Bool) throws(TokenizerError) -> String {
        try prompt(messages: messages, tools: tools, addGenerationPrompt: addGenerationPrompt).text
    }

    /// The prompt with the template's own text marked; encode it with `Tokenizer.encode(_:)`.
    /// `tools` are JSON texts of OpenAI-style tool definitions, given to templates that lay
    /// them out.
    package func prompt(messages: [ChatMessage], tools: [String]? = nil, addGenerationPrompt: Bool) throws(TokenizerError) -> RenderedPrompt {
        guard let jinja else {
            let text = try handRendered(messages: messages, addGenerationPrompt: addGenerationPrompt)
            return RenderedPrompt(trustedText: text)
        }
        var toolValues: [JinjaValue]?
        if let tools {
            var values: [JinjaValue] = []
            for t in tools {
                do { values.append(try JinjaValue(json: t)) } catch { throw .chatTemplateFailed(detail: "a tool definition is not JSON: \(error)") }
            }
            toolValues = values
        }
        var messageValues: [JinjaValue] = []
        for m in messages { messageValues.append(try m.jinjaValue()) }
        let context = JinjaContext(messages: messageValues, tools: toolValues, addGenerationPrompt: addGenerationPrompt,
                                   bosToken: bosToken, eosToken: eosToken)
        let segments: [JinjaSegment]
        do { segments = try jinja.segments(context) } catch { throw .chatTemplateFailed(detail: Self.describe(error)) }
        var text = ""
        var trusted: [Range<Int>] = []
        var offset = 0
        for s in segments {
            let n = s.text.utf8.count
            if s.origin == .template, n > 0 { trusted.append(offset..<offset + n) }
            text += s.text
            offset += n
        }
        return RenderedPrompt(text: text, trusted: trusted)
    }

    private func handRendered(messages: [ChatMessage], addGenerationPrompt: Bool) throws(TokenizerError) -> String {
        switch family {
        case .chatML(let defaultSystemPrompt):
            var out = ""
            if let defaultSystemPrompt, messages.first?.role != .system {
                out += "<|im_start|>system\n\(defaultSystemPrompt)<|im_end|>\n"
            }
            for message in messages {
                out += "<|im_start|>\(message.role.rawValue)\n\(message.content)<|im_end|>\n"
            }
            if addGenerationPrompt { out += "<|im_start|>assistant\n" }
            return out
        case .gemma:
            var out = ""
            var systemPrefix = ""
            var turns = messages[...]
            if let first = turns.first, first.role == .system {
                systemPrefix = first.content + "\n\n"
                turns = turns.dropFirst()
            }
            for message in turns {
                let role: String
                switch message.role {
                case .user: role = "user"
                case .assistant: role = "model"
                case .system, .tool: throw .unsupportedRole(message.role)
                }
                out += "<start_of_turn>\(role)\n\(systemPrefix)\(message.content)<end_of_turn>\n"
                systemPrefix = ""
            }
            if addGenerationPrompt { out += "<start_of_turn>model\n" }
            return out
        case .other:
            throw .unsupportedChatTemplate
        }
    }

    /// One line naming what failed and where (`raise_exception` keeps the template's message).
    static func describe(_ error: JinjaError) -> String {
        switch error {
        case let .raised(message, at): "the template refused the conversation at \(at): \(message)"
        case let .unsupported(construct, at): "unsupported template construct '\(construct)' at \(at)"
        case let .syntax(message, at): "template syntax error at \(at): \(message)"
        case let .unknownFilter(name, at): "unknown filter '\(name)' at \(at)"
        case let .unknownTest(name, at): "unknown test '\(name)' at \(at)"
        default: "template error at \(error.location): \(error)"
        }
    }

    /// The system text a ChatML template writes when the first message is not a system message:
    /// the literal `<|im_start|>system\n…<|im_end|>` inside the template, if the template has one
    /// (with a real newline or a `\n` escape after `system`).
    static func defaultSystemPrompt(in template: String) -> String? {
        for opener in ["<|im_start|>system\n", "<|im_start|>system\\n"] {
            guard let start = template.firstRange(of: opener),
                  let end = template[start.upperBound...].firstRange(of: "<|im_end|>")
            else { continue }
            let text = template[start.upperBound..<end.lowerBound]
            // A template that interpolates the system content (`{{ … }}`) has no default to take.
            guard !text.contains("{{"), !text.contains("{%"), !text.contains("'"), !text.contains("\"") else { continue }
            return String(text.replacing("\\n", with: "\n"))
        }
        return nil
    }
}
