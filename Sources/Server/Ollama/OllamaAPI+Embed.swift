import Foundation
import StructuredOutput

/// `POST /api/embed` (`input`: a string or strings → `embeddings`) and the older
/// `POST /api/embeddings` (`prompt` → `embedding`), both through `ModelHost.embed`, the path
/// of OpenAI's `/v1/embeddings`. Vectors are as the model's pooling config makes them
/// (L2-normalized for sentence-transformers models), on both endpoints.
extension OllamaAPI {
    func embed(_ request: HTTPRequest, _ responder: HTTPResponder) throws {
        let started = ContinuousClock.now
        let body = try server.jsonBody(request)
        let model = try Self.modelName(body)
        let keepAlive = try OllamaKeepAlive(body["keep_alive"])
        let inputs: [String]
        switch body["input"] {
        case .string(let s)?: inputs = [s]
        case .array(let items)? where !items.isEmpty && items.allSatisfy({ $0.string != nil }): inputs = items.compactMap(\.string)
        default: throw ServerError.invalidRequest("'input' must be a string or a non-empty array of strings", param: "input")
        }
        guard inputs.count <= OpenAIServer.maxEmbeddingInputs else {
            throw ServerError.invalidRequest("at most \(OpenAIServer.maxEmbeddingInputs) inputs per request", param: "input")
        }
        let truncate = try TextRequest.optional(body, "truncate", \.bool, "a boolean") ?? true
        let dimensions = try TextRequest.optional(body, "dimensions", \.integer, "an integer")
        _ = try OllamaOptions.settings(body["options"])  // checked; nothing in it applies to an embedder
        guard let result = try host.embed(inputs, model: model, endpoint: "/api/embed", truncate: truncate,
                                          keepAliveSeconds: keepAlive?.seconds, responder: responder) else { return }
        if let dimensions, let width = result.first?.vector.count, dimensions != width {
            throw ServerError.invalidRequest("'dimensions' \(dimensions): this model's vectors have \(width) dimensions", param: "dimensions")
        }
        let total = OllamaReply.nanoseconds(ContinuousClock.now - started)
        let reply = JSONValue.make([
            ("model", .string(model)),
            ("embeddings", .array(result.map { .array($0.vector.map { .number(Double($0)) }) })),
            ("total_duration", .int(total)),
            ("prompt_eval_count", .int(result.reduce(0) { $0 + $1.tokens })),
        ])
        responder.send(json: reply.serialized)
    }

    func embeddings(_ request: HTTPRequest, _ responder: HTTPResponder) throws {
        let body = try server.jsonBody(request)
        let model = try Self.modelName(body)
        let keepAlive = try OllamaKeepAlive(body["keep_alive"])
        guard let prompt = try TextRequest.optional(body, "prompt", \.string, "a string") else {
            throw ServerError.invalidRequest("'prompt' is required (a string)", param: "prompt")
        }
        _ = try OllamaOptions.settings(body["options"])
        guard let result = try host.embed([prompt], model: model, endpoint: "/api/embeddings",
                                          keepAliveSeconds: keepAlive?.seconds, responder: responder) else { return }
        let vector = result.first?.vector ?? []
        responder.send(json: JSONValue.make([("embedding", .array(vector.map { .number(Double($0)) }))]).serialized)
    }
}
