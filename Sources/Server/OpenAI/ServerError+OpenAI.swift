import StructuredOutput

/// OpenAI's error shape: `{"error": {"message", "type", "param", "code"}}` with the status that
/// goes with it, so clients (openai-python raises by status) see the errors they expect.
extension ServerError {
    package var status: Int {
        switch self {
        case .bind, .apiKeyRequired, .modelFailed: 500
        case .connectionClosed, .malformedRequest, .invalidRequest, .wrongModelKind, .adapterUnusable: 400
        case .timedOut: 408
        case .headersTooLarge: 431
        case .requestTooLarge: 413
        case .unsupportedTransferEncoding: 501
        case .unauthorized: 401
        case .notFound, .modelNotFound, .adapterNotFound: 404
        case .methodNotAllowed: 405
        case .unsupportedMediaType: 415
        case .queueFull: 429
        case .shuttingDown: 503
        }
    }

    var errorType: String {
        switch self {
        case .unauthorized: "authentication_error"
        case .queueFull: "rate_limit_error"
        case .bind, .apiKeyRequired, .modelFailed, .shuttingDown: "server_error"
        default: "invalid_request_error"
        }
    }

    var code: String? {
        switch self {
        case .unauthorized: "invalid_api_key"
        case .modelNotFound: "model_not_found"
        case .adapterNotFound: "adapter_not_found"
        case .adapterUnusable: "adapter_mismatch"
        case .queueFull: "rate_limit_exceeded"
        case .requestTooLarge: "request_too_large"
        case .timedOut: "request_timeout"
        default: nil
        }
    }

    var param: String? {
        switch self {
        case .invalidRequest(_, let param): param
        case .modelNotFound, .wrongModelKind: "model"
        case .adapterNotFound, .adapterUnusable: "lora"
        default: nil
        }
    }

    /// The response body.
    package var body: JSONValue {
        .object([.init("error", .object([
            .init("message", .string(description)),
            .init("type", .string(errorType)),
            .init("param", param.map(JSONValue.string) ?? .null),
            .init("code", code.map(JSONValue.string) ?? .null),
        ]))])
    }
}
