import Foundation
import StructuredOutput

/// `POST /v1/embeddings`: `input` as a string or an array of strings; float vectors (or
/// base64 of little-endian float32 with `encoding_format: base64`), L2-normalized as the
/// model's pooling config says.
extension OpenAIServer {
    static let maxEmbeddingInputs = 2048

    func embeddings(_ request: HTTPRequest, _ responder: HTTPResponder) throws {
        let body = try jsonBody(request)
        guard let modelId = body["model"]?.string, !modelId.isEmpty else { throw ServerError.invalidRequest("'model' is required (a string)", param: "model") }
        let inputs: [String]
        switch body["input"] {
        case .string(let s)?: inputs = [s]
        case .array(let items)? where !items.isEmpty && items.allSatisfy({ $0.string != nil }): inputs = items.compactMap(\.string)
        default: throw ServerError.invalidRequest("'input' must be a string or a non-empty array of strings", param: "input")
        }
        guard inputs.count <= Self.maxEmbeddingInputs else {
            throw ServerError.invalidRequest("at most \(Self.maxEmbeddingInputs) inputs per request", param: "input")
        }
        let format = body["encoding_format"]?.string ?? "float"
        guard format == "float" || format == "base64" else { throw ServerError.invalidRequest("encoding_format must be float or base64", param: "encoding_format") }
        guard let result = try host.embed(inputs, model: modelId, endpoint: "/v1/embeddings", responder: responder) else { return }
        var tokens = 0
        let data: [JSONValue] = result.enumerated().map { i, e in
            tokens += e.tokens
            let vector: JSONValue = format == "base64"
                ? .string(e.vector.withUnsafeBytes { Data($0) }.base64EncodedString())
                : .array(e.vector.map { .number(Double($0)) })
            return .make([("object", .string("embedding")), ("index", .int(i)), ("embedding", vector)])
        }
        let usage = JSONValue.make([("prompt_tokens", .int(tokens)), ("total_tokens", .int(tokens))])
        responder.send(json: JSONValue.make([("object", .string("list")), ("data", .array(data)), ("model", .string(modelId)), ("usage", usage)]).serialized)
    }
}
