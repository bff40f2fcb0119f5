import Engine
import Tokenizers

/// A prompt for text generation, tokenized against whichever model the backend runs at the time
/// (token ids differ between models, so the feature tokenizes after leasing).
package enum TextPrompt: Sendable, Equatable {
    /// One user turn inside the model's chat template; raw text when the model has none.
    case user(String, system: String? = nil)
    /// A whole conversation inside the model's chat template.
    case chat([ChatMessage])
    /// Text as is (BOS as the model's metadata says). Control-token text in it stays text, as in
    /// every door: only a chat template's own markers become control tokens.
    case raw(String)
    /// Token ids as is (they must belong to the backend's model).
    case tokens([Int32])

    package func tokens(for model: LanguageModel) throws(RuntimeError) -> [Int32] {
        switch self {
        case .tokens(let ids):
            return ids
        case .raw(let text):
            return model.tokenizer.encode(text, addBOS: nil, parseSpecial: false)
        case let .user(text, system):
            guard let template = try? model.chatTemplate() else {
                return model.tokenizer.encode(text, addBOS: nil, parseSpecial: false)
            }
            var messages = system.map { [ChatMessage(role: .system, content: $0)] } ?? []
            messages.append(ChatMessage(role: .user, content: text))
            return try render(messages, template, model)
        case .chat(let messages):
            let template: ChatTemplate
            do { template = try model.chatTemplate() } catch { throw .engine(error) }
            return try render(messages, template, model)
        }
    }

    private func render(_ messages: [ChatMessage], _ template: ChatTemplate, _ model: LanguageModel) throws(RuntimeError) -> [Int32] {
        do { return model.tokenizer.encode(try template.prompt(messages: messages, addGenerationPrompt: true)) } catch { throw .engine(.tokenizer(error)) }
    }
}
