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
    /// JSON text that does not parse; `offset` is a byte offset.
    case malformedJSON(offset: Int, expected: String)
    /// A JSON Schema that is not a valid schema; `path` is a JSON Pointer into it.
    case invalidSchema(path: String, reason: String)
    /// A JSON Schema using a keyword or combination constrained decoding does not support.
    case unsupportedSchema(path: String, keyword: String)
    /// A JSON document that does not satisfy its schema.
    case schemaViolation(path: String, reason: String)
    /// Constrained decoding needs more tokens than the budget (max tokens or context) allows.
    case tokenBudgetTooSmall(needed: Int, available: Int)
    /// Generation ended before the constrained document was complete.
    case incompleteOutput(FinishReason)
    /// No token of the vocabulary can continue the constrained output (e.g. it lacks a byte).
    case noAllowedToken(afterTokens: Int)
    /// Valid JSON that does not decode into the requested Swift type.
    case decoding(type: String, reason: String)
    /// An arithmetic expression that does not parse or evaluate; `offset` is a character offset.
    case calculation(offset: Int, reason: String)
    /// A tool could not do what the call asked.
    case toolFailed(name: String, reason: String)
    /// A LoRA adapter scale that is not a finite number.
    case invalidAdapterScale(Float)
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
        case let .malformedJSON(offset, expected): "malformed JSON at byte \(offset): expected \(expected)"
        case let .invalidSchema(path, reason): "invalid JSON Schema at \(path): \(reason)"
        case let .unsupportedSchema(path, keyword): "unsupported JSON Schema at \(path): \(keyword)"
        case let .schemaViolation(path, reason): "JSON does not match the schema at \(path): \(reason)"
        case let .tokenBudgetTooSmall(needed, available):
            "the output needs at least \(needed) tokens but only \(available) are allowed"
        case .incompleteOutput(let reason): "generation ended (\(reason.rawValue)) before the output was complete"
        case .noAllowedToken(let n): "no token can continue the constrained output after \(n) tokens"
        case let .decoding(type, reason): "the JSON does not decode as \(type): \(reason)"
        case let .calculation(offset, reason): "calculation error at character \(offset): \(reason)"
        case let .toolFailed(name, reason): "\(name): \(reason)"
        case .invalidAdapterScale(let scale): "LoRA adapter scale \(scale) is not a finite number"
        }
    }
}
