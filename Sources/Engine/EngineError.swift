import Formats
import Models
import Tokenizers

/// Errors of the generation engine.
package enum EngineError: Error, Sendable, Equatable {
    /// The prompt (plus any cached turns) does not fit in the session's context.
    case contextOverflow(tokens: Int, contextLength: Int)
    /// The prompt has no tokens to evaluate.
    case emptyPrompt
    /// A token id outside the vocabulary.
    case invalidToken(id: Int32, vocabularySize: Int)
    /// The model has no chat template, so chat needs a raw prompt.
    case noChatTemplate
    /// The model file could not be loaded.
    case model(ModelError)
    /// The tokenizer could not be built from the file's metadata.
    case tokenizer(TokenizerError)
    /// Generation was cancelled by the caller.
    case cancelled
}

extension EngineError: CustomStringConvertible {
    /// One line for logs and the CLI.
    package var description: String {
        switch self {
        case let .contextOverflow(tokens, contextLength):
            "prompt too long: \(tokens) tokens exceed the context of \(contextLength)"
        case .emptyPrompt: "the prompt is empty"
        case let .invalidToken(id, vocabularySize): "token id \(id) is outside the vocabulary (\(vocabularySize))"
        case .noChatTemplate: "the model has no chat template; use a raw prompt"
        case .model(let error): error.description
        case .tokenizer(let error): "tokenizer: \(error)"
        case .cancelled: "cancelled"
        }
    }
}
