import Foundation
import StructuredOutput

/// Ollama's API (`/api/…`) beside OpenAI's, so tools built for Ollama work against
/// `ondevice serve`: routing, model names, model listings and errors in Ollama's shape
/// (`{"error": "…"}`). Text and embeddings run through the same host paths as the OpenAI
/// endpoints (`ModelHost.generate`, `ModelHost.embed`); this door only reads Ollama's fields
/// and writes its replies. Followed: Ollama's API reference (docs/api.md) as the official
/// `ollama` Python client 0.6.3 reads it.
package struct OllamaAPI {
    let server: OpenAIServer
    var host: ModelHost { server.host }

    /// The Ollama release whose API this door follows; clients that gate features on
    /// `/api/version` (tools, structured outputs) see one that has them.
    static let compatibleVersion = "0.12.0"
    /// What `GET /` answers; Ollama clients probe it to see a server is up.
    static let banner = "OnDevice is running (OpenAI API at /v1, Ollama API at /api)"

    static func serves(_ path: String) -> Bool { path.hasPrefix("/api/") }

    func route(_ path: String, _ request: HTTPRequest, _ responder: HTTPResponder) throws {
        let routes: [String: (method: String, run: (HTTPRequest, HTTPResponder) throws -> Void)] = [
            "/api/version": ("GET", version),
            "/api/tags": ("GET", tags),
            "/api/ps": ("GET", ps),
            "/api/show": ("POST", show),
            "/api/generate": ("POST", generate),
            "/api/chat": ("POST", chat),
            "/api/embed": ("POST", embed),
            "/api/embeddings": ("POST", embeddings),
        ]
        guard let route = routes[path] else { throw ServerError.notFound(method: request.method, path: String(path.prefix(200))) }
        let method = request.method == "HEAD" ? "GET" : request.method
        guard method == route.method else { throw ServerError.methodNotAllowed(method: request.method, path: path) }
        try route.run(request, responder)
    }

    /// Ollama's error body: the message alone, worded as Ollama words the ones clients match on.
    static func errorBody(_ error: ServerError) -> JSONValue {
        let message = switch error {
        case .modelNotFound(let name): "model '\(name)' not found"
        default: error.description
        }
        return .make([("error", .string(message))])
    }

    // MARK: Names

    /// The catalog id an Ollama model name means: Ollama names carry a tag, and `:latest` (the
    /// one a bare name implies) is the only one our ids have.
    package static func catalogId(_ name: String) -> String {
        name.hasSuffix(":latest") ? String(name.dropLast(7)) : name
    }

    /// The request's model name (`model`, or `name` as older clients send), as a catalog id.
    static func modelName(_ body: JSONValue) throws(ServerError) -> String {
        guard let name = (body["model"] ?? body["name"])?.string, !name.isEmpty else {
            throw .invalidRequest("'model' is required (a string)", param: "model")
        }
        return catalogId(name)
    }

    /// RFC 3339 with fractional seconds, UTC, as Ollama writes times (a value style, made once:
    /// every streamed piece carries a time).
    static func timestamp(_ date: Date = Date()) -> String { timeStyle.format(date) }

    private static let timeStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)

    // MARK: /api/version, /api/tags, /api/ps, /api/show

    private func version(_ request: HTTPRequest, _ responder: HTTPResponder) throws {
        responder.send(json: JSONValue.make([("version", .string(Self.compatibleVersion))]).serialized)
    }

    private func tags(_ request: HTTPRequest, _ responder: HTTPResponder) throws {
        let models = try host.describedModels(kinds: [.llm, .embedding]).map { model in
            JSONValue.make([("name", .string(model.info.id + ":latest")), ("model", .string(model.info.id + ":latest")),
                            ("modified_at", .string(Self.timestamp(model.weights?.modified ?? Date(timeIntervalSince1970: 0)))),
                            ("size", .int(Int(model.info.bytesOnDisk))), ("digest", .string(model.info.weightsFile?.sha256 ?? "")),
                            ("details", Self.details(model))])
        }
        responder.send(json: JSONValue.make([("models", .array(models))]).serialized)
    }

    private func ps(_ request: HTTPRequest, _ responder: HTTPResponder) throws {
        let described = try host.describedModels(kinds: [.llm, .embedding])
        let now = Date()
        let models: [JSONValue] = try host.residents().models.filter { !$0.isLoading }.compactMap { resident in
            guard let model = described.first(where: { $0.info.id == resident.id }) else { return nil }
            var fields: [(String, JSONValue)] = [
                ("name", .string(resident.id + ":latest")), ("model", .string(resident.id + ":latest")),
                ("size", .int(resident.bytes)), ("digest", .string(model.info.weightsFile?.sha256 ?? "")), ("details", Self.details(model)),
            ]
            // Known while idle with a finite keep-alive; a model in use or kept forever has none.
            if let left = resident.idleSecondsLeft { fields.append(("expires_at", .string(Self.timestamp(now.addingTimeInterval(left))))) }
            fields.append(("size_vram", .int(0)))
            if model.info.kind == .llm { fields.append(("context_length", .int(try host.textContextLength()))) }
            return .make(fields)
        }
        responder.send(json: JSONValue.make([("models", .array(models))]).serialized)
    }

    private func show(_ request: HTTPRequest, _ responder: HTTPResponder) throws {
        let id = try Self.modelName(server.jsonBody(request))
        guard let model = try host.describedModels(kinds: [.llm, .embedding]).first(where: { $0.info.id == id }) else {
            throw ServerError.modelNotFound(id)
        }
        let header = model.weights
        let isText = model.info.kind == .llm
        var info: [(String, JSONValue)] = []
        if let arch = header?.architecture {
            info.append(("general.architecture", .string(arch)))
            info.append(("general.parameter_count", .int(header?.parameterCount ?? 0)))
            let sizes: [(String, Int?)] = [("context_length", header?.contextLength), ("embedding_length", header?.embeddingLength),
                                           ("block_count", header?.layerCount), ("attention.head_count", header?.headCount)]
            for (key, value) in sizes { if let value { info.append(("\(arch).\(key)", .int(value))) } }
            if let vocabulary = header?.vocabularySize { info.append(("tokenizer.vocabulary_size", .int(vocabulary))) }
        }
        // What the text core does with the model: chat (and so tools and JSON output) needs its
        // chat template; completion needs nothing more.
        let capabilities: [String] = isText ? (header?.chatTemplate == nil ? ["completion"] : ["completion", "tools"]) : ["embedding"]
        var fields: [(String, JSONValue)] = [
            ("license", .string(model.info.license)),
            ("modelfile", .string("# ondevice model \(id); weights \(model.info.weightsFile?.name ?? "-")\nFROM \(id)\n")),
            ("parameters", .string("")),
            ("template", .string(header?.chatTemplate ?? "")),
            ("details", Self.details(model)),
            ("model_info", .make(info)),
            ("capabilities", .array(capabilities.map(JSONValue.string))),
        ]
        if let modified = model.weights?.modified { fields.append(("modified_at", .string(Self.timestamp(modified)))) }
        responder.send(json: JSONValue.make(fields).serialized)
    }

    /// Ollama's `details`: format, family, parameter size ("134.52M"), quantization.
    static func details(_ model: ModelHost.ServedModel) -> JSONValue {
        let family = model.weights?.architecture ?? model.info.kind.rawValue
        return .make([("parent_model", .string("")), ("format", .string(model.weights?.format ?? "")), ("family", .string(family)),
                      ("families", .array([.string(family)])),
                      ("parameter_size", .string(model.weights.map { parameterSize($0.parameterCount) } ?? "")),
                      ("quantization_level", .string(model.weights?.quantization ?? ""))])
    }

    /// A parameter count the way Ollama prints it: "134.52M", "8.0B".
    static func parameterSize(_ count: Int) -> String {
        let n = Double(count)
        if n >= 1e9 { return String(format: "%.1fB", n / 1e9) }
        if n >= 1e6 { return String(format: "%.2fM", n / 1e6) }
        if n >= 1e3 { return String(format: "%.2fK", n / 1e3) }
        return String(count)
    }
}
