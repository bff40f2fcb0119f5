/// Everything that goes wrong in the server: starting it, reading a request off the wire, and
/// answering an API call. `ServerError+OpenAI.swift` maps each case to its HTTP status and the
/// OpenAI error body.
package enum ServerError: Error, Sendable, Equatable, CustomStringConvertible {
    // Starting.
    case bind(host: String, port: Int, reason: String)
    /// Binding beyond loopback without an API key would open the models to the network.
    case apiKeyRequired(host: String)

    // The wire (HTTP/1.1 framing).
    /// The peer went away (or the server is shutting down) before a whole request arrived.
    case connectionClosed
    /// No byte within the idle timeout, or the head / body did not finish within its timeout.
    case timedOut(stage: String, seconds: Double)
    case malformedRequest(String)
    case headersTooLarge(limit: Int)
    case requestTooLarge(limit: Int)
    case unsupportedTransferEncoding(String)

    // The API.
    case unauthorized
    case notFound(method: String, path: String)
    case methodNotAllowed(method: String, path: String)
    /// A body or field the endpoint cannot take; `param` names the field (OpenAI's `param`).
    case invalidRequest(String, param: String? = nil)
    case unsupportedMediaType(String)
    case modelNotFound(String)
    /// The model exists but cannot serve this endpoint (an embedding model asked to chat).
    case wrongModelKind(model: String, endpoint: String)
    /// A `lora` id that is neither a file nor a LoRA adapter in the model store.
    case adapterNotFound(String)
    /// The adapter exists but cannot be applied to the model (`reason` is the typed load error).
    case adapterUnusable(adapter: String, model: String, reason: String)
    case queueFull(model: String, waiting: Int)
    case modelFailed(model: String, reason: String)
    case shuttingDown

    package var description: String {
        switch self {
        case let .bind(host, port, reason): "cannot listen on \(host):\(port): \(reason)"
        case .apiKeyRequired(let host): "binding \(host) (beyond loopback) needs --api-key"
        case .connectionClosed: "the connection closed before the request was complete"
        case let .timedOut(stage, seconds): "the request \(stage) did not arrive within \(seconds) s"
        case .malformedRequest(let reason): "malformed HTTP request: \(reason)"
        case .headersTooLarge(let limit): "request head over \(limit) bytes"
        case .requestTooLarge(let limit): "request body over \(limit) bytes"
        case .unsupportedTransferEncoding(let te): "unsupported Transfer-Encoding '\(te)'"
        case .unauthorized: "missing or wrong API key (send 'Authorization: Bearer <key>')"
        case let .notFound(method, path): "no route for \(method) \(path)"
        case let .methodNotAllowed(method, path): "\(method) is not allowed on \(path)"
        case .invalidRequest(let message, _): message
        case .unsupportedMediaType(let type): "unsupported Content-Type '\(type)'"
        case .modelNotFound(let model): "the model '\(model)' does not exist or is not served"
        case let .wrongModelKind(model, endpoint): "the model '\(model)' cannot serve \(endpoint)"
        case .adapterNotFound(let id): "the LoRA adapter '\(id)' is neither a file nor an adapter in the model store"
        case let .adapterUnusable(adapter, model, reason): "the LoRA adapter '\(adapter)' cannot be applied to '\(model)': \(reason)"
        case let .queueFull(model, waiting): "too many requests for '\(model)' (\(waiting) already waiting); retry later"
        case let .modelFailed(model, reason): "model '\(model)' failed: \(reason)"
        case .shuttingDown: "the server is shutting down"
        }
    }
}
