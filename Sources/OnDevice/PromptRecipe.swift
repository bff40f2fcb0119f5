import Engine
import Tokenizers

/// A task prompt in a model-neutral form: an instruction, the input, and how a plain completion
/// model should be led into its answer. Chat models get it through their chat template; models
/// without one (base models such as Gemma 3 270M) get a plain-text completion prompt.
struct PromptRecipe: Sendable {
    var system: String?
    var instruction: String
    var input: String
    /// Lead-in for completion models, e.g. "Summary:".
    var answerLead: String

    /// The prompt's token ids for `model`, and extra stop strings for completion models.
    func tokens(for model: LanguageModel) throws -> (ids: [Int32], stop: [String]) {
        if let template = try? model.chatTemplate() {
            var messages: [ChatMessage] = []
            if let system { messages.append(ChatMessage(role: .system, content: system)) }
            messages.append(ChatMessage(role: .user, content: "\(instruction)\n\n\(input)"))
            return (model.tokenizer.encode(try template.prompt(messages: messages, addGenerationPrompt: true)), [])
        }
        let text = "\(instruction)\n\nText:\n\(input)\n\n\(answerLead)"
        // Completion models continue past their answer; a new "Text:" block or a run of blank
        // lines marks that the answer ended.
        return (model.tokenizer.encode(text, addBOS: nil, parseSpecial: false), ["\n\nText:", "\n\n\n"])
    }

    /// Tokens the recipe adds around its input (template, instruction, lead).
    func overhead(for model: LanguageModel) throws -> Int {
        var empty = self
        empty.input = ""
        return try empty.tokens(for: model).ids.count
    }
}
