import TextGeneration
import Tokenizers

/// A task prompt in a model-neutral form: an instruction, the input, and how a plain completion
/// model should be led into its answer. Chat models get it as one user turn of their chat
/// template; models without one (base models such as Gemma 3 270M) get a plain-text completion
/// prompt.
struct PromptRecipe: Sendable {
    var system: String?
    var instruction: String
    var input: String
    /// Lead-in for completion models, e.g. "Summary:".
    var answerLead: String

    /// The core's input for `model`, and extra stop strings for completion models.
    func input(for model: LanguageModel) -> (input: TextInput, stop: [String]) {
        if model.hasChatTemplate { return (.user("\(instruction)\n\n\(input)", system: system), []) }
        // Completion models continue past their answer; a new "Text:" block or a run of blank
        // lines marks that the answer ended.
        return (.raw("\(instruction)\n\nText:\n\(input)\n\n\(answerLead)"), ["\n\nText:", "\n\n\n"])
    }

    /// Tokens the recipe adds around its input (template, instruction, lead).
    func overhead(for model: LanguageModel) throws -> Int {
        var empty = self
        empty.input = ""
        return try empty.input(for: model).input.ids(model).count
    }
}
