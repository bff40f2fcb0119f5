import Foundation
import StructuredOutput

/// The OpenAI-compatible API over `HTTPServer`: authentication, routing, and errors in
/// OpenAI's shape. Endpoints live in `OpenAIServer+<Endpoint>.swift`; Ollama's API (`/api/…`,
/// in `Ollama/`) is routed from here too, behind the same key. `GET /` is the chat page
/// (`ChatPage`) for a browser and a one-line banner for anything else.
package struct OpenAIServer: HTTPHandling {
    package let host: ModelHost
    let apiKey: String?

    package init(host: ModelHost) {
        self.host = host
        self.apiKey = host.configuration.apiKey.flatMap { $0.isEmpty ? nil : $0 }
    }

    package func handle(_ request: HTTPRequest, _ responder: HTTPResponder) {
        do {
            try route(request, responder)
        } catch let error as ServerError {
            fail(error, responder, ollama: OllamaAPI.serves(request.path))
        } catch {
            fail(.modelFailed(model: "-", reason: "\(error)"), responder, ollama: OllamaAPI.serves(request.path))
        }
    }

    private func route(_ request: HTTPRequest, _ responder: HTTPResponder) throws {
        let path = request.path.count > 1 && request.path.hasSuffix("/") ? String(request.path.dropLast()) : request.path
        if path == "/health" {
            guard request.method == "GET" || request.method == "HEAD" else { throw ServerError.methodNotAllowed(method: request.method, path: path) }
            return responder.send(json: JSONValue.make([("status", .string("ok"))]).serialized)
        }
        if (path == "/" || path == "/index.html") && (request.method == "GET" || request.method == "HEAD") {
            // The chat page holds no data, so like /health it needs no key; its requests carry one.
            if path == "/index.html" || ChatPage.isWanted(by: request) { return ChatPage.send(responder) }
            // Ollama clients probe the root before anything else.
            return responder.send(status: 200, contentType: "text/plain; charset=utf-8", body: Array(OllamaAPI.banner.utf8))
        }
        if let apiKey {
            guard let auth = request.header("authorization"), auth.hasPrefix("Bearer "),
                  Self.constantTimeEqual(Array(auth.dropFirst(7).utf8), Array(apiKey.utf8)) else {
                throw ServerError.unauthorized
            }
        }
        let routes: [String: (method: String, run: (HTTPRequest, HTTPResponder) throws -> Void)] = [
            "/v1/models": ("GET", models),
            "/v1/chat/completions": ("POST", chatCompletions),
            "/v1/completions": ("POST", completions),
            "/v1/embeddings": ("POST", embeddings),
            "/v1/audio/transcriptions": ("POST", transcriptions),
            "/v1/audio/speech": ("POST", speech),
        ]
        if path == "/metrics" {
            guard request.method == "GET" else { throw ServerError.methodNotAllowed(method: request.method, path: path) }
            return responder.send(status: 200, contentType: "text/plain; version=0.0.4; charset=utf-8", body: Array(host.metricsPage().utf8))
        }
        if OllamaAPI.serves(path) { return try OllamaAPI(server: self).route(path, request, responder) }
        if path.hasPrefix("/v1/models/") && request.method == "GET" { return try model(String(path.dropFirst(11)), responder) }
        guard let route = routes[path] else { throw ServerError.notFound(method: request.method, path: String(path.prefix(200))) }
        guard request.method == route.method else { throw ServerError.methodNotAllowed(method: request.method, path: path) }
        try route.run(request, responder)
    }

    /// The error response, in Ollama's shape on its paths and OpenAI's elsewhere.
    func fail(_ error: ServerError, _ responder: HTTPResponder, ollama: Bool = false) {
        guard responder.status == nil else { return }  // a stream already started reports in-band
        let body = ollama ? OllamaAPI.errorBody(error) : error.body
        responder.send(status: error.status, body: Array(body.serialized.utf8))
    }

    /// A JSON object body: UTF-8, parsed with the engine's bounded-depth parser.
    func jsonBody(_ request: HTTPRequest) throws(ServerError) -> JSONValue {
        if let type = request.mediaType, !Self.jsonMediaTypes.contains(type), !type.hasSuffix("+json") { throw .unsupportedMediaType(type) }
        guard let text = String(validating: request.body, as: UTF8.self) else { throw .invalidRequest("the body is not valid UTF-8") }
        let value: JSONValue
        do { value = try JSONValue(parsing: text) } catch { throw .invalidRequest("the body is not valid JSON: \(error)") }
        guard case .object = value else { throw .invalidRequest("the body must be a JSON object") }
        return value
    }

    /// JSON, or what `curl -d` and some clients send without saying (the body must still parse).
    static let jsonMediaTypes: Set<String> = ["application/json", "application/x-www-form-urlencoded", "text/plain", ""]

    // MARK: /v1/models

    private func models(_ request: HTTPRequest, _ responder: HTTPResponder) throws {
        let host = host
        let served = try blockingAwait { try await host.servedModels().map { ($0.id, $0.kind.rawValue) } }
        let data = served.map { Self.modelObject(id: $0.0, kind: $0.1) }
        responder.send(json: JSONValue.make([("object", .string("list")), ("data", .array(data))]).serialized)
    }

    private func model(_ id: String, _ responder: HTTPResponder) throws {
        let host = host
        let served = try blockingAwait { try await host.servedModels().map { ($0.id, $0.kind.rawValue) } }
        guard let found = served.first(where: { $0.0 == id }) else { throw ServerError.modelNotFound(id) }
        responder.send(json: Self.modelObject(id: found.0, kind: found.1).serialized)
    }

    static func modelObject(id: String, kind: String) -> JSONValue {
        .make([("id", .string(id)), ("object", .string("model")), ("created", .int(0)), ("owned_by", .string("ondevice")),
               ("kind", .string(kind))])
    }

    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var diff: UInt8 = 0
        for i in 0..<a.count { diff |= a[i] ^ b[i] }
        return diff == 0
    }

    static var now: Int { Int(Date().timeIntervalSince1970) }

    static func identifier(_ prefix: String) -> String {
        prefix + "-" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
    }
}
