import OnDevice
import StructuredOutput

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
        let outcomes: [Completion]?
        do {
            outcomes = try host.generate(request, endpoint: endpoint, responder: responder,
                                         onStart: { stream?.open(choice: $0) }, onText: { stream?.delta($0) },
                                         onLogprobs: { stream?.logprobs($0) }, onEnd: { stream?.end($0) })
        } catch let error as ServerError {
            guard let stream, responder.status != nil else { throw error }
            stream.fail(error)
            return
        }
        guard let outcomes else {  // the client left: nothing to answer, but a started stream is closed
            if let stream, responder.status != nil { stream.finish(usage: nil) }
            return
        }
        let usage = Self.usage(outcomes)
        if let stream { return stream.finish(usage: usage) }
        let choices = outcomes.enumerated().map { index, outcome in
            var fields: [(String, JSONValue)] = [("index", .int(index))]
            if chat {
                var message: [(String, JSONValue)] = [("role", .string("assistant")),
                                                      ("content", outcome.toolCalls.isEmpty || !outcome.text.isEmpty ? .string(outcome.text) : .null)]
                if !outcome.toolCalls.isEmpty { message.append(("tool_calls", Self.toolCalls(outcome.toolCalls, id: id, choice: index, streaming: false))) }
                fields.append(("message", .make(message)))
            } else {
                fields.append(("text", .string(outcome.text)))
            }
            let logprobs = outcome.result.logprobs.map { chat ? Self.chatLogprobs($0) : Self.legacyLogprobs($0, offset: 0) } ?? .null
            fields += [("logprobs", logprobs), ("finish_reason", .string(outcome.wireFinishReason))]
            if request.returnTokenIds {
                fields += [("prompt_token_ids", .array(outcome.result.promptTokenIDs.map { .int(Int($0)) })),
                           ("token_ids", .array(outcome.result.tokenIDs.map { .int(Int($0)) }))]
            }
            return JSONValue.make(fields)
        }
        let body = JSONValue.make([("id", .string(id)), ("object", .string(chat ? "chat.completion" : "text_completion")),
                                   ("created", .int(created)), ("model", .string(request.model)),
                                   ("choices", .array(choices)), ("usage", usage)]
                                  + (request.adapters.isEmpty ? [] : [("lora", request.adaptersJSON)]))
        responder.send(json: body.serialized)
    }

    /// The prompt counts once (every choice reads the same one); completion tokens add up.
    static func usage(_ outcomes: [Completion]) -> JSONValue {
        var m = TextMetrics()
        m.promptTokens = outcomes.first?.result.metrics.promptTokens ?? 0
        m.completionTokens = outcomes.reduce(0) { $0 + $1.result.metrics.completionTokens }
        return usage(m)
    }

    static func usage(_ m: TextMetrics) -> JSONValue {
        .make([("prompt_tokens", .int(m.promptTokens)), ("completion_tokens", .int(m.completionTokens)),
               ("total_tokens", .int(m.promptTokens + m.completionTokens))])
    }

    static func toolCalls(_ calls: [Message.ToolCall], id: String, choice: Int = 0, streaming: Bool) -> JSONValue {
        .array(calls.enumerated().map { i, call in
            var fields: [(String, JSONValue)] = streaming ? [("index", .int(i))] : []
            let name = choice == 0 ? "call_\(id.suffix(8))_\(i)" : "call_\(id.suffix(8))_\(choice)_\(i)"
            fields += [("id", .string(name)), ("type", .string("function")),
                       ("function", .make([("name", .string(call.name)), ("arguments", .string(call.arguments))]))]
            return .make(fields)
        })
    }
}

extension OpenAIServer {
    /// Chat's `logprobs`: `{"content": [{token, logprob, bytes, top_logprobs}]}`.
    static func chatLogprobs(_ tokens: [GeneratedToken]) -> JSONValue {
        func entry(_ bytes: [UInt8], _ logprob: Float) -> [(String, JSONValue)] {
            [("token", .string(String(decoding: bytes, as: UTF8.self))), ("logprob", wire(logprob)),
             ("bytes", .array(bytes.map { .int(Int($0)) }))]
        }
        return .make([("content", .array(tokens.map { t in
            .make(entry(t.bytes, t.logprob) + [("top_logprobs", .array(t.alternatives.map { .make(entry($0.bytes, $0.logprob)) }))])
        }))])
    }

    /// `/v1/completions`' legacy `logprobs`: parallel lists of tokens, their logprobs, each
    /// step's alternatives (token text → logprob) and where each token starts in the choice's
    /// text, in characters from `offset`.
    static func legacyLogprobs(_ tokens: [GeneratedToken], offset: Int) -> JSONValue {
        var offsets: [JSONValue] = []
        var at = offset
        for t in tokens {
            offsets.append(.int(at))
            at += characters(t.bytes)
        }
        return .make([("tokens", .array(tokens.map { .string(String(decoding: $0.bytes, as: UTF8.self)) })),
                      ("token_logprobs", .array(tokens.map { wire($0.logprob) })),
                      ("top_logprobs", .array(tokens.map { t in .make(t.alternatives.map { (String(decoding: $0.bytes, as: UTF8.self), wire($0.logprob)) }) })),
                      ("text_offset", .array(offsets))])
    }

    /// Characters (code points, as Python counts them) that `bytes` start: its non-continuation bytes.
    static func characters(_ bytes: [UInt8]) -> Int { bytes.reduce(0) { $0 + ($1 & 0xC0 == 0x80 ? 0 : 1) } }

    /// A logprob as JSON; one too small for a float is OpenAI's "very unlikely", -9999.
    private static func wire(_ logprob: Float) -> JSONValue { .number(logprob.isFinite ? Double(logprob) : -9999) }
}

/// The SSE side of a streamed text request: per choice, the opening chunk (role), content deltas
/// (with their tokens' logprobs when asked), the closing chunk (tool calls, finish reason); then
/// usage when asked, and `[DONE]`.
final class TextStream {
    let id: String
    let created: Int
    let request: TextRequest
    let chat: Bool
    let responder: HTTPResponder
    /// The choice being streamed (`n` choices go one after another).
    private var current = 0
    private var opened = -1
    /// Logprobs of the text about to be sent, and the legacy form's character offset so far.
    private var pending: [GeneratedToken] = []
    private var offset = 0

    init(id: String, created: Int, request: TextRequest, chat: Bool, responder: HTTPResponder) {
        self.id = id
        self.created = created
        self.request = request
        self.chat = chat
        self.responder = responder
    }

    /// Starts the response once the model is leased (so queue and load errors keep their status),
    /// and each choice once it has passed every check.
    func open(choice: Int) {
        if responder.status == nil { responder.startStream() }
        guard choice > opened else { return }
        opened = choice
        current = choice
        offset = 0
        pending = []
        if chat { send(choiceChunk(delta: [("role", .string("assistant")), ("content", .string(""))], finish: nil)) }
    }

    /// The tokens of the next `delta`.
    func logprobs(_ tokens: [GeneratedToken]) { pending += tokens }

    func delta(_ text: String) {
        var logprobs = JSONValue.null
        if request.options.logprobs != nil {
            logprobs = chat ? OpenAIServer.chatLogprobs(pending) : OpenAIServer.legacyLogprobs(pending, offset: offset)
            offset += pending.reduce(0) { $0 + OpenAIServer.characters($1.bytes) }
            pending = []
        }
        send(chat ? choiceChunk(delta: [("content", .string(text))], finish: nil, logprobs: logprobs)
                  : .make([("index", .int(current)), ("text", .string(text)), ("logprobs", logprobs), ("finish_reason", .null)]))
    }

    /// Closes the current choice.
    func end(_ outcome: Completion) {
        if chat {
            if !outcome.toolCalls.isEmpty {
                let calls = OpenAIServer.toolCalls(outcome.toolCalls, id: id, choice: current, streaming: true)
                send(choiceChunk(delta: [("tool_calls", calls)], finish: nil))
            }
            send(choiceChunk(delta: [], finish: outcome.wireFinishReason))
        } else {
            send(.make([("index", .int(current)), ("text", .string("")), ("logprobs", .null), ("finish_reason", .string(outcome.wireFinishReason))]))
        }
    }

    /// Ends the stream: the usage chunk when asked (and the request finished), then `[DONE]`.
    func finish(usage: JSONValue?) {
        if let usage, request.includeUsage { send(nil, usage: usage) }
        responder.event("[DONE]")
        responder.finishStream()
    }

    /// An error after the stream started: an `error` event (openai-python raises it), then the end.
    func fail(_ error: ServerError) {
        responder.event(error.body.serialized)
        responder.event("[DONE]")
        responder.finishStream()
    }

    private func choiceChunk(delta: [(String, JSONValue)], finish: String?, logprobs: JSONValue = .null) -> JSONValue {
        .make([("index", .int(current)), ("delta", .make(delta)), ("logprobs", logprobs), ("finish_reason", finish.map(JSONValue.string) ?? .null)])
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
