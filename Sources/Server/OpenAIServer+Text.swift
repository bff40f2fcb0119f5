import Models
import Runtime
import StructuredOutput
import TextGeneration
import Tools

/// `POST /v1/chat/completions` and `POST /v1/completions`, whole or streamed as server-sent
/// events (`data: {chunk}` lines, then `data: [DONE]`).
extension OpenAIServer {
    func chatCompletions(_ request: HTTPRequest, _ responder: HTTPResponder) throws {
        try text(TextRequest(chat: jsonBody(request)), chat: true, responder)
    }

    func completions(_ request: HTTPRequest, _ responder: HTTPResponder) throws {
        try text(TextRequest(completion: jsonBody(request)), chat: false, responder)
    }

    private func text(_ request: TextRequest, chat: Bool, _ responder: HTTPResponder) throws {
        let endpoint = chat ? "/v1/chat/completions" : "/v1/completions"
        let id = Self.identifier(chat ? "chatcmpl" : "cmpl")
        let created = Self.now
        let stream = request.stream ? TextStream(id: id, created: created, request: request, chat: chat, responder: responder) : nil
        let outcome: TextRun.Outcome?
        do {
            outcome = try host.generate(request, endpoint: endpoint, responder: responder,
                                        onStart: { stream?.open() }, onText: { stream?.delta($0) })
        } catch let error as ServerError {
            guard let stream, responder.status != nil else { throw error }
            stream.fail(error)
            return
        }
        guard let outcome else {  // the client left: nothing to answer, but a started stream is closed
            if let stream, responder.status != nil { stream.finish(nil) }
            return
        }
        if let stream { return stream.finish(outcome) }
        let usage = Self.usage(outcome.metrics)
        var fields: [(String, JSONValue)] = [("index", .int(0))]
        if chat {
            var message: [(String, JSONValue)] = [("role", .string("assistant")),
                                                  ("content", outcome.calls.isEmpty || !outcome.content.isEmpty ? .string(outcome.content) : .null)]
            if !outcome.calls.isEmpty { message.append(("tool_calls", Self.toolCalls(outcome.calls, id: id, streaming: false))) }
            fields.append(("message", .make(message)))
        } else {
            fields.append(("text", .string(outcome.content)))
        }
        fields += [("logprobs", .null), ("finish_reason", .string(outcome.finishReason))]
        if request.returnTokenIds {
            fields += [("prompt_token_ids", .array(outcome.promptIds.map { .int(Int($0)) })),
                       ("token_ids", .array(outcome.generatedIds.map { .int(Int($0)) }))]
        }
        let choice = JSONValue.make(fields)
        let body = JSONValue.make([("id", .string(id)), ("object", .string(chat ? "chat.completion" : "text_completion")),
                                   ("created", .int(created)), ("model", .string(request.model)),
                                   ("choices", .array([choice])), ("usage", usage)]
                                  + (request.adapters.isEmpty ? [] : [("lora", request.adaptersJSON)]))
        responder.send(json: body.serialized)
    }

    /// The requested adapters loaded through the resident model (cached with it, checked against it).
    static func scaledAdapters(_ request: TextRequest, paths: [String], on resident: ResidentLanguageModel) throws(ServerError) -> [ScaledAdapter] {
        var out: [ScaledAdapter] = []
        for (choice, path) in zip(request.adapters, paths) {
            let adapter: LoRAAdapter
            do throws(EngineError) { adapter = try resident.adapter(path: path) } catch {
                throw .adapterUnusable(adapter: choice.id, model: request.model, reason: error.description)
            }
            out.append(ScaledAdapter(adapter, scale: choice.scale))
        }
        return out
    }

    static func usage(_ m: GenerationMetrics) -> JSONValue {
        .make([("prompt_tokens", .int(m.promptTokens)), ("completion_tokens", .int(m.completionTokens)),
               ("total_tokens", .int(m.promptTokens + m.completionTokens))])
    }

    static func toolCalls(_ calls: [ToolCall], id: String, streaming: Bool) -> JSONValue {
        .array(calls.enumerated().map { i, call in
            var fields: [(String, JSONValue)] = streaming ? [("index", .int(i))] : []
            fields += [("id", .string("call_\(id.suffix(8))_\(i)")), ("type", .string("function")),
                       ("function", .make([("name", .string(call.name)), ("arguments", .string(call.arguments.serialized))]))]
            return .make(fields)
        })
    }
}

/// The SSE side of a streamed text request: the opening chunk (role), content deltas, the
/// closing chunk (tool calls, finish reason), usage when asked, `[DONE]`.
final class TextStream {
    let id: String
    let created: Int
    let request: TextRequest
    let chat: Bool
    let responder: HTTPResponder

    init(id: String, created: Int, request: TextRequest, chat: Bool, responder: HTTPResponder) {
        self.id = id
        self.created = created
        self.request = request
        self.chat = chat
        self.responder = responder
    }

    /// Starts the response once the model is leased (so queue and load errors keep their status).
    func open() {
        guard responder.status == nil else { return }
        responder.startStream()
        if chat { send(choice(delta: [("role", .string("assistant")), ("content", .string(""))], finish: nil)) }
    }

    func delta(_ text: String) {
        send(chat ? choice(delta: [("content", .string(text))], finish: nil)
                  : .make([("index", .int(0)), ("text", .string(text)), ("logprobs", .null), ("finish_reason", .null)]))
    }

    func finish(_ outcome: TextRun.Outcome?) {
        if let outcome {
            if chat {
                if !outcome.calls.isEmpty {
                    send(choice(delta: [("tool_calls", OpenAIServer.toolCalls(outcome.calls, id: id, streaming: true))], finish: nil))
                }
                send(choice(delta: [], finish: outcome.finishReason))
            } else {
                send(.make([("index", .int(0)), ("text", .string("")), ("logprobs", .null), ("finish_reason", .string(outcome.finishReason))]))
            }
            if request.includeUsage { send(nil, usage: OpenAIServer.usage(outcome.metrics)) }
        }
        responder.event("[DONE]")
        responder.finishStream()
    }

    /// An error after the stream started: an `error` event (openai-python raises it), then the end.
    func fail(_ error: ServerError) {
        responder.event(error.body.serialized)
        responder.event("[DONE]")
        responder.finishStream()
    }

    private func choice(delta: [(String, JSONValue)], finish: String?) -> JSONValue {
        .make([("index", .int(0)), ("delta", .make(delta)), ("logprobs", .null), ("finish_reason", finish.map(JSONValue.string) ?? .null)])
    }

    private func send(_ choice: JSONValue?, usage: JSONValue? = nil) {
        var fields: [(String, JSONValue)] = [("id", .string(id)), ("object", .string(chat ? "chat.completion.chunk" : "text_completion")),
                                             ("created", .int(created)), ("model", .string(request.model)),
                                             ("choices", .array(choice.map { [$0] } ?? []))]
        if let usage { fields.append(("usage", usage)) }
        if !request.adapters.isEmpty { fields.append(("lora", request.adaptersJSON)) }
        responder.event(JSONValue.make(fields).serialized)
    }
}
