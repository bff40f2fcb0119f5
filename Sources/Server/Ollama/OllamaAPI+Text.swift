import Foundation
import OnDevice
import StructuredOutput

/// `POST /api/generate` and `POST /api/chat`: Ollama's fields read into a `TextRequest`, run
/// by `ModelHost.generate` (the OpenAI endpoints' path), answered whole or — Ollama's default —
/// streamed as newline-delimited JSON, one object per piece of text and a last one with
/// `done: true`, the reason and the counts and durations (nanoseconds).
extension OllamaAPI {
    func generate(_ request: HTTPRequest, _ responder: HTTPResponder) throws {
        let started = ContinuousClock.now
        let body = try server.jsonBody(request)
        let model = try Self.modelName(body)
        let keepAlive = try OllamaKeepAlive(body["keep_alive"])
        let prompt = try TextRequest.optional(body, "prompt", \.string, "a string") ?? ""
        try Self.refuseUnsupported(body, fields: ["images", "template", "suffix", "context"])
        if prompt.isEmpty {  // Ollama's way to load (or with keep_alive 0, unload) a model
            return try residency(model, keepAlive: keepAlive, chat: false, responder)
        }
        let raw = try TextRequest.optional(body, "raw", \.bool, "a boolean") ?? false
        let system = try TextRequest.optional(body, "system", \.string, "a string")
        var text = TextRequest(model: model, prompt: raw ? .raw(prompt) : .user(prompt, system: system))
        try Self.readCommon(body, into: &text, contextLength: try host.textContextLength())
        try run(text, chat: false, keepAlive: keepAlive, started: started, responder)
    }

    func chat(_ request: HTTPRequest, _ responder: HTTPResponder) throws {
        let started = ContinuousClock.now
        let body = try server.jsonBody(request)
        let model = try Self.modelName(body)
        let keepAlive = try OllamaKeepAlive(body["keep_alive"])
        let messages = body["messages"]
        if messages == nil || messages?.isNull == true || messages?.array?.isEmpty == true {
            return try residency(model, keepAlive: keepAlive, chat: true, responder)
        }
        var text = TextRequest(model: model, prompt: .chat(try TextRequest.messages(body["messages"])))
        try Self.readCommon(body, into: &text, contextLength: try host.textContextLength())
        if let tools = body["tools"], !tools.isNull, tools.array?.isEmpty != true {
            guard case .text = text.output else {
                throw ServerError.invalidRequest("'format' and 'tools' cannot be combined: the reply is either a call or a document",
                                                 param: "format")
            }
            // Ollama has no tool_choice: the model may answer in words or with calls, as with
            // OpenAI's "auto"; `parallelToolCalls` is left on, so up to `maxParallelCalls` of them.
            text.output = try TextRequest.tools(tools, choice: .auto)
        }
        try run(text, chat: true, keepAlive: keepAlive, started: started, responder)
    }

    /// The fields both endpoints share: `format`, `options`, `stream`, `think`.
    static func readCommon(_ body: JSONValue, into text: inout TextRequest, contextLength: Int) throws(ServerError) {
        switch body["format"] {
        case nil, .null?, .string("")?: break
        case .string("json")?: text.output = .json(schema: try TextRequest.schema(TextRequest.anyObject, param: "format").document.serialized)
        case .object?: text.output = .json(schema: try TextRequest.schema(body["format"] ?? .null, param: "format").document.serialized)
        default: throw .invalidRequest("'format' must be \"json\" or a JSON Schema object", param: "format")
        }
        text.options = try OllamaOptions.settings(body["options"]).applied(to: text.options, contextLength: contextLength)
        text.stream = try TextRequest.optional(body, "stream", \.bool, "a boolean") ?? true
        switch body["think"] {
        case nil, .null?, .bool(false)?: break
        default: throw .invalidRequest("thinking is not supported by this server's models", param: "think")
        }
    }

    /// Fields Ollama has that the text core has no way to honour: a 400 naming the field when
    /// one is given, rather than an answer that silently ignored it.
    static func refuseUnsupported(_ body: JSONValue, fields: [String]) throws(ServerError) {
        for field in fields {
            switch body[field] {
            case nil, .null?, .string("")?: continue
            case .array(let items)? where items.isEmpty: continue
            default:
                let why = switch field {
                case "images": "the text models of this server read text only"
                case "template": "prompts are rendered with the model's own chat template (use raw for your own format)"
                case "suffix": "fill-in-the-middle is not supported"
                default: "token contexts from earlier replies are not supported (send the conversation to /api/chat)"
                }
                throw .invalidRequest("'\(field)': \(why)", param: field)
            }
        }
    }

    /// Runs the request on the shared text path and answers in Ollama's shape.
    private func run(_ text: TextRequest, chat: Bool, keepAlive: OllamaKeepAlive?, started: ContinuousClock.Instant,
                     _ responder: HTTPResponder) throws {
        let reply = OllamaReply(model: text.model, chat: chat, started: started, responder: responder)
        let stream = text.stream ? reply : nil
        let outcome: Completion?
        do {
            outcome = try host.generate(text, endpoint: chat ? "/api/chat" : "/api/generate", keepAliveSeconds: keepAlive?.seconds,
                                        responder: responder, onStart: { _ in reply.began(streaming: stream != nil) },
                                        onText: { stream?.piece($0) })?.first
        } catch let error as ServerError {
            guard responder.status != nil else { throw error }
            return reply.fail(error)  // the stream started: the error goes in-band, as Ollama's does
        }
        guard let outcome else {  // the client left
            if responder.status != nil { responder.finishStream() }
            return
        }
        if stream != nil { return reply.finishStream(outcome) }
        reply.sendWhole(outcome)
    }

    /// An empty prompt (or no messages) loads the model and keeps it for `keep_alive`; with
    /// `keep_alive: 0` it unloads it. Answered with `done_reason` "load" or "unload".
    private func residency(_ model: String, keepAlive: OllamaKeepAlive?, chat: Bool, _ responder: HTTPResponder) throws {
        let endpoint = chat ? "/api/chat" : "/api/generate"
        let reason: String
        if keepAlive?.unloadsNow == true {
            try host.unload(model, kind: .llm, endpoint: endpoint)
            reason = "unload"
        } else {
            guard try host.preload(model, kind: .llm, endpoint: endpoint, keepAliveSeconds: keepAlive?.seconds, responder: responder) else { return }
            reason = "load"
        }
        var fields: [(String, JSONValue)] = [("model", .string(model)), ("created_at", .string(Self.timestamp()))]
        fields.append(chat ? ("message", .make([("role", .string("assistant")), ("content", .string(""))])) : ("response", .string("")))
        fields += [("done", .bool(true)), ("done_reason", .string(reason))]
        responder.send(json: JSONValue.make(fields).serialized)
    }
}
