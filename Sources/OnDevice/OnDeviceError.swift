import StructuredOutput
import ModelStore

/// Why an operation failed: a `code` an app can switch on, a `message` that says what and where
/// in words it can show, the facts a code carries (`model`, `tokens`, `limit`, `tool`, `path`,
/// `reason`) and, when one is underneath, the typed error that caused it.
///
/// A struct rather than an enum so that new codes and new facts can be added without breaking
/// an app's `switch` (give it a `default`), as swift-nio's `FileSystemError` does.
///
/// ```swift
/// do { _ = try await ai.chat(messages) } catch let error as OnDeviceError where error.code == .inputTooLong {
///     print("too long by \(error.tokens! - error.limit!) tokens")
/// }
/// ```
public struct OnDeviceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure it is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// The model is neither installed nor downloadable (unknown id, no network source, ...).
        public static let modelUnavailable = Code("modelUnavailable")
        /// The model file could not be loaded (corrupt, unsupported architecture or tensor type).
        public static let modelLoadFailed = Code("modelLoadFailed")
        /// The input does not fit in the model's context and the op was asked not to shorten it.
        public static let inputTooLong = Code("inputTooLong")
        /// The model has no chat template, so chat-style ops cannot format their prompt.
        public static let noChatTemplate = Code("noChatTemplate")
        /// The caller cancelled the operation.
        public static let cancelled = Code("cancelled")
        /// An invalid argument (empty text, bad option value), named in the message.
        public static let invalidArgument = Code("invalidArgument")
        /// Any other engine failure, described in the message.
        public static let engine = Code("engine")
        /// The model called a tool the chat does not offer (told to the model, which carries on).
        public static let unknownTool = Code("unknownTool")
        /// The model's arguments do not fit the tool's schema (told to the model, which carries on).
        public static let invalidToolArguments = Code("invalidToolArguments")
        /// The model's call text was not a JSON call (told to the model, which carries on).
        public static let malformedToolCall = Code("malformedToolCall")
        /// The tool's handler threw (told to the model, which carries on).
        public static let toolFailed = Code("toolFailed")
        /// The model still wanted to call tools after the chat's limit of calls (thrown only when
        /// `ToolOptions.failAtCallLimit` asks for it).
        public static let toolCallLimitReached = Code("toolCallLimitReached")
        /// A LoRA adapter that cannot be read or does not fit the model.
        public static let adapterUnusable = Code("adapterUnusable")
        /// A download failed: the network, the server, or files whose size or SHA-256 differ
        /// from what was pinned.
        public static let downloadFailed = Code("downloadFailed")
        /// The model store's disk: no room, a file that cannot be read or written, a lock.
        public static let storage = Code("storage")
    }

    public var code: Code
    /// One line that says what and where.
    public var message: String
    /// The model the failure concerns, when there is one.
    public var model: String?
    /// For `.inputTooLong`: the input's tokens and the limit; for `.toolCallLimitReached`, the limit.
    public var tokens: Int?
    public var limit: Int?
    /// The tool the failure concerns (tool codes), or the tools that were offered (`.unknownTool`).
    public var tool: String?
    public var availableTools: [String]?
    /// The file the failure concerns (`.adapterUnusable`).
    public var path: String?
    /// The underlying reason in words, when the code has one.
    public var reason: String?
    /// The typed error underneath (an engine, runtime or store error), when there is one. Not
    /// part of equality.
    public var cause: (any Error & Sendable)?

    public init(code: Code, message: String, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    public var description: String { message }

    public static func == (a: OnDeviceError, b: OnDeviceError) -> Bool {
        a.code == b.code && a.message == b.message && a.model == b.model && a.tokens == b.tokens && a.limit == b.limit
            && a.tool == b.tool && a.availableTools == b.availableTools && a.path == b.path && a.reason == b.reason
    }

    public static func modelUnavailable(model: String, reason: String) -> OnDeviceError {
        var e = OnDeviceError(code: .modelUnavailable, message: "model '\(model)' is unavailable: \(reason)")
        (e.model, e.reason) = (model, reason)
        return e
    }

    public static func modelLoadFailed(model: String, reason: String) -> OnDeviceError {
        var e = OnDeviceError(code: .modelLoadFailed, message: "model '\(model)' failed to load: \(reason)")
        (e.model, e.reason) = (model, reason)
        return e
    }

    public static func inputTooLong(tokens: Int, limit: Int) -> OnDeviceError {
        var e = OnDeviceError(code: .inputTooLong, message: "input too long: \(tokens) tokens, the limit is \(limit)")
        (e.tokens, e.limit) = (tokens, limit)
        return e
    }

    public static func noChatTemplate(model: String) -> OnDeviceError {
        var e = OnDeviceError(code: .noChatTemplate, message: "model '\(model)' has no chat template")
        e.model = model
        return e
    }

    public static var cancelled: OnDeviceError { OnDeviceError(code: .cancelled, message: "cancelled") }

    public static func invalidArgument(_ what: String) -> OnDeviceError {
        var e = OnDeviceError(code: .invalidArgument, message: "invalid argument: \(what)")
        e.reason = what
        return e
    }

    public static func engine(_ what: String) -> OnDeviceError { OnDeviceError(code: .engine, message: what) }

    public static func unknownTool(name: String, available: [String]) -> OnDeviceError {
        var e = OnDeviceError(code: .unknownTool,
                              message: "no tool named '\(name)' (the tools are: \(available.joined(separator: ", ")))")
        (e.tool, e.availableTools) = (name, available)
        return e
    }

    public static func invalidToolArguments(tool: String, reason: String) -> OnDeviceError {
        var e = OnDeviceError(code: .invalidToolArguments, message: "invalid arguments for tool \(tool): \(reason)")
        (e.tool, e.reason) = (tool, reason)
        return e
    }

    public static func malformedToolCall(reason: String) -> OnDeviceError {
        var e = OnDeviceError(code: .malformedToolCall, message: "malformed tool call: \(reason)")
        e.reason = reason
        return e
    }

    public static func toolFailed(tool: String, reason: String) -> OnDeviceError {
        var e = OnDeviceError(code: .toolFailed, message: "tool \(tool) failed: \(reason)")
        (e.tool, e.reason) = (tool, reason)
        return e
    }

    public static func toolCallLimitReached(limit: Int) -> OnDeviceError {
        var e = OnDeviceError(code: .toolCallLimitReached, message: "the model wanted more than \(limit) tool calls")
        e.limit = limit
        return e
    }

    public static func adapterUnusable(path: String, reason: String) -> OnDeviceError {
        var e = OnDeviceError(code: .adapterUnusable, message: "LoRA adapter '\(path)' cannot be used: \(reason)")
        (e.path, e.reason) = (path, reason)
        return e
    }

    /// A model store error as apps see it: the store's own words, a code by what went wrong,
    /// and the store's typed error as the cause.
    init(store error: StoreError, model: String? = nil) {
        let code: Code = switch error {
        case .unknownOp, .invalidModelId, .invalidPath, .unsupportedURL, .manifestInvalid: .invalidArgument
        case .unknownModel, .notInstalled, .noHubEndpoint: .modelUnavailable
        case .checksumMismatch, .sizeMismatch, .invalidHeader, .missingFile, .http, .connection, .stalled, .tooManyRedirects,
             .badContentRange: .downloadFailed
        case .cancelled: .cancelled
        case .catalogMissingColumn, .catalogBadField, .catalogBadRow, .catalogConflict, .insufficientStorage, .io, .lockFailed: .storage
        }
        self.init(code: code, message: error.description, cause: error)
        self.model = model
        reason = error.description
        switch error {
        case .unknownModel(let id), .notInstalled(let id), .invalidModelId(let id): self.model = id
        default: break
        }
    }

    /// An engine error as apps see it, the engine's typed error kept as the cause.
    init(_ error: EngineError) {
        switch error {
        case let .contextOverflow(tokens, contextLength): self = .inputTooLong(tokens: tokens, limit: contextLength)
        case .cancelled: self = .cancelled
        case .emptyPrompt: self = .invalidArgument("the prompt is empty")
        default: self = .engine(error.description)
        }
        cause = error
    }
}
