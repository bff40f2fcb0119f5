import OnDevice
import StructuredOutput

extension ServerError {
    /// What the public API's text call threw, as the wire says it: what the client asked for
    /// that this model cannot do is a 400 naming the field; the rest is the model's failure.
    /// The engine's own error, kept as the cause, says which.
    static func text(_ error: OnDeviceError, model: String, adapters: [(id: String, path: String)] = []) -> ServerError {
        if error.code == .adapterUnusable, let path = error.path {
            let id = adapters.first { $0.path == path }?.id ?? path
            return .adapterUnusable(adapter: id, model: model, reason: error.reason ?? error.message)
        }
        if error.code == .modelUnavailable { return .modelFailed(model: model, reason: error.reason ?? error.message) }
        guard let cause = error.cause as? EngineError else {
            if error.code == .invalidArgument { return .invalidRequest(error.reason ?? error.message) }
            return .modelFailed(model: model, reason: error.message)
        }
        switch cause {
        case .noChatTemplate:
            return .invalidRequest("model '\(model)' has no chat template; use /v1/completions", param: "model")
        case let .contextOverflow(tokens, limit):
            return .invalidRequest("the prompt has \(tokens) tokens; this model's context leaves room for \(limit)", param: "messages")
        case .emptyPrompt:
            return .invalidRequest("the prompt is empty", param: "messages")
        case .tokenizer(let detail):
            return .invalidRequest("cannot render the conversation: \(detail)", param: "messages")
        case .invalidSchema, .unsupportedSchema:
            return .invalidRequest("cannot build the output grammar: \(cause)", param: "response_format")
        case let .tokenBudgetTooSmall(needed, available):
            return .invalidRequest("max_tokens \(available) is too small for the requested output (needs \(needed))", param: "max_tokens")
        default:
            return .modelFailed(model: model, reason: cause.description)
        }
    }
}

extension Completion {
    /// The finish reason as OpenAI's wire says it: a reply that made calls ended with `tool_calls`.
    var wireFinishReason: String {
        switch finishReason {
        case .length, .contextFull: "length"
        default: toolCalls.isEmpty ? "stop" : "tool_calls"
        }
    }
}
