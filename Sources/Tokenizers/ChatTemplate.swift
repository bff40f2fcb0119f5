/// Renders a conversation the way a model's own chat template would, for the template families
/// we recognise in `tokenizer.chat_template`. We do not run Jinja: the family is detected from
/// marker texts and rendered here, reproducing the output of the known templates exactly.
package struct ChatTemplate: Sendable, Equatable {
    /// The template families we can render.
    package enum Family: Sendable, Equatable {
        /// `<|im_start|>role\ncontent<|im_end|>\n` (SmolLM2, Qwen, …). `defaultSystemPrompt` is the
        /// system message the template inserts when the conversation has none.
        case chatML(defaultSystemPrompt: String?)
        /// `<start_of_turn>user\ncontent<end_of_turn>\n`, assistant turns as `model`, a system
        /// message folded into the first user turn (Gemma).
        case gemma
    }

    /// The recognised family.
    package let family: Family

    /// Recognises the family of a GGUF `tokenizer.chat_template`; nil text → `.noChatTemplate`.
    package init(metadataTemplate: String?) throws(TokenizerError) {
        guard let template = metadataTemplate, !template.isEmpty else { throw .noChatTemplate }
        if template.contains("<|im_start|>") {
            family = .chatML(defaultSystemPrompt: Self.defaultSystemPrompt(in: template))
        } else if template.contains("<start_of_turn>") {
            family = .gemma
        } else {
            throw .unsupportedChatTemplate
        }
    }

    /// A template of a known family, without metadata.
    package init(family: Family) {
        self.family = family
    }

    /// The prompt text; tokenize it with `parseSpecial: true`. Gemma templates begin with the BOS
    /// token, which is not part of the text here: `encode` adds it when the model asks for BOS.
    package func render(messages: [ChatMessage], addGenerationPrompt: Bool) throws(TokenizerError) -> String {
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
