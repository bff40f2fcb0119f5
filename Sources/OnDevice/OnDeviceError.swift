import ModelStore
import StructuredOutput

/// Why an OnDevice operation failed. Each case says what and where, in words an app can show.
public enum OnDeviceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The model is neither installed nor downloadable (unknown id, no network source, ...).
    case modelUnavailable(model: String, reason: String)
    /// The model file could not be loaded (corrupt, unsupported architecture or tensor type).
    case modelLoadFailed(model: String, reason: String)
    /// The input does not fit in the model's context and the op was asked not to shorten it.
    case inputTooLong(tokens: Int, limit: Int)
    /// The model has no chat template, so chat-style ops cannot format their prompt.
    case noChatTemplate(model: String)
    /// The caller cancelled the operation.
    case cancelled
    /// An invalid argument (empty text, bad option value), named.
    case invalidArgument(String)
    /// Any other engine failure, described.
    case engine(String)
    /// The model called a tool the chat does not offer (told to the model, which carries on).
    case unknownTool(name: String, available: [String])
    /// The model's arguments do not fit the tool's schema (told to the model, which carries on).
    case invalidToolArguments(tool: String, reason: String)
    /// The model's call text was not a JSON call (told to the model, which carries on).
    case malformedToolCall(reason: String)
    /// The tool's handler threw (told to the model, which carries on).
    case toolFailed(tool: String, reason: String)
    /// The model still wanted to call tools after the chat's limit of calls (thrown only when
    /// `ToolOptions.failAtCallLimit` asks for it).
    case toolCallLimitReached(limit: Int)
    /// A LoRA adapter that cannot be read or does not fit the model.
    case adapterUnusable(path: String, reason: String)

    public var description: String {
        switch self {
        case let .modelUnavailable(model, reason): "model '\(model)' is unavailable: \(reason)"
        case let .modelLoadFailed(model, reason): "model '\(model)' failed to load: \(reason)"
        case let .inputTooLong(tokens, limit): "input too long: \(tokens) tokens, the limit is \(limit)"
        case .noChatTemplate(let model): "model '\(model)' has no chat template"
        case .cancelled: "cancelled"
        case .invalidArgument(let what): "invalid argument: \(what)"
        case .engine(let what): what
        case let .unknownTool(name, available):
            "no tool named '\(name)' (the tools are: \(available.joined(separator: ", ")))"
        case let .invalidToolArguments(tool, reason): "invalid arguments for tool \(tool): \(reason)"
        case .malformedToolCall(let reason): "malformed tool call: \(reason)"
        case let .toolFailed(tool, reason): "tool \(tool) failed: \(reason)"
        case .toolCallLimitReached(let limit): "the model wanted more than \(limit) tool calls"
        case let .adapterUnusable(path, reason): "LoRA adapter '\(path)' cannot be used: \(reason)"
        }
    }

    init(_ error: EngineError) {
        switch error {
        case let .contextOverflow(tokens, contextLength): self = .inputTooLong(tokens: tokens, limit: contextLength)
        case .cancelled: self = .cancelled
        case .emptyPrompt: self = .invalidArgument("the prompt is empty")
        default: self = .engine(error.description)
        }
    }
}
