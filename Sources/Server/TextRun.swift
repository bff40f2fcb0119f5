import Engine
import Tokenizers

/// One generation for a text request on a leased session: the prompt rendered with the model's
/// chat template (tool list or schema instruction added to the system message), the output
/// constrained as the request asks, text passed on as it is decoded.
struct TextRun {
    struct Outcome {
        var content: String
        var calls: [ToolCall]
        var finishReason: String
        var metrics: GenerationMetrics
    }

    let request: TextRequest
    let session: Session

    func promptTokens() throws(ServerError) -> [Int32] {
        let model = session.model
        switch request.prompt {
        case .raw(let text):
            return model.tokenizer.encode(text, addBOS: nil, parseSpecial: false)
        case .chat(var messages):
            let template: ChatTemplate
            do { template = try model.chatTemplate() } catch { throw .invalidRequest("model '\(request.model)' has no chat template; use /v1/completions", param: "model") }
            switch request.output {
            case .text: break
            case .schema(let schema): messages = Self.addingSystem(schema.promptInstruction, to: messages)
            case .tools(let registry, _): messages = Self.addingSystem(registry.systemPrompt, to: messages)
            }
            if case .gemma = template.family {  // no tool role: results go back as user turns
                messages = messages.map { $0.role == .tool ? ChatMessage(role: .user, content: $0.content) : $0 }
            }
            do {
                return model.tokenizer.encode(try template.prompt(messages: messages, addGenerationPrompt: true))
            } catch { throw .invalidRequest("cannot render the conversation: \(error)", param: "messages") }
        }
    }

    static func addingSystem(_ text: String, to messages: [ChatMessage]) -> [ChatMessage] {
        var out = messages
        if let first = out.first, first.role == .system {
            out[0].content = first.content + "\n\n" + text
        } else {
            out.insert(ChatMessage(role: .system, content: text), at: 0)
        }
        return out
    }

    /// Generates. `onText` gets visible text (never a tool call's own text); `isCancelled` is
    /// polled every token; `onStart` runs once the request has passed every check. Returns nil
    /// when cancelled.
    func run(isCancelled: () -> Bool, onStart: () -> Void = {}, onText: (String) -> Void) throws(ServerError) -> Outcome? {
        let prompt = try promptTokens()
        let room = session.contextLength - prompt.count
        guard room >= 1 else {
            throw .invalidRequest("the prompt has \(prompt.count) tokens; this model's context is \(session.contextLength)", param: "messages")
        }
        var options = request.options
        options.maxTokens = min(options.maxTokens, room)
        var constraint: GrammarConstraint?
        var grammar = Grammar.Options()
        do {
            switch request.output {
            case .text:
                break
            case .schema(let schema):
                constraint = GrammarConstraint(grammar: try Grammar(schema: schema, options: grammar), tokenizer: session.model.tokenizer)
                options.stop = []  // a stop string could cut the document
            case .tools(let registry, let required):
                grammar.maxWhitespace = 1
                let prefix: Grammar.Prefix = required ? .literal(ToolRegistry.callOpen) : .freeTextUntil(ToolRegistry.callOpen)
                constraint = GrammarConstraint(grammar: try Grammar(schema: registry.callSchema, prefix: prefix, options: grammar),
                                               tokenizer: session.model.tokenizer)
            }
        } catch { throw .invalidRequest("cannot build the output grammar: \(error)", param: "response_format") }
        if let constraint, constraint.minimumBytesToFinish > options.maxTokens {
            throw .invalidRequest("max_tokens \(options.maxTokens) is too small for the requested output (needs \(constraint.minimumBytesToFinish))", param: "max_tokens")
        }
        // Visible text stops where a call opens; the call itself is returned as tool_calls.
        var matcher = StopMatcher(stops: constraint != nil && !request.outputIsSchema ? [ToolRegistry.callOpen] : [])
        var calling = false
        let result: GenerationResult
        onStart()
        do {
            result = try Generator(session: session, options: options).run(prompt: prompt, constraint: constraint, isCancelled: isCancelled) { _, piece in
                guard !calling else { return }
                let (emit, stopped) = matcher.feed(piece)
                if !emit.isEmpty { onText(emit) }
                calling = stopped
            }
        } catch {
            throw .modelFailed(model: request.model, reason: error.description)
        }
        if result.metrics.finishReason == .cancelled { return nil }
        if !calling {
            let tail = matcher.flush()
            if !tail.isEmpty { onText(tail) }
        }
        let finish: String = switch result.metrics.finishReason {
        case .length, .contextFull: "length"
        default: "stop"
        }
        switch request.output {
        case .tools:
            let (content, parsed) = ToolCallParser.parse(result.text)
            let calls = parsed.compactMap { if case .call(let c) = $0 { c } else { nil } }
            return Outcome(content: content, calls: calls, finishReason: calls.isEmpty ? finish : "tool_calls", metrics: result.metrics)
        case .schema:
            guard constraint?.minimumBytesToFinish == 0 else {
                throw .modelFailed(model: request.model, reason: "the JSON document did not finish within max_tokens")
            }
            let json = String(result.text.reversed().drop { $0 == " " || $0 == "\n" }.reversed())
            return Outcome(content: json, calls: [], finishReason: "stop", metrics: result.metrics)
        case .text:
            return Outcome(content: result.text, calls: [], finishReason: finish, metrics: result.metrics)
        }
    }
}

extension TextRequest {
    var outputIsSchema: Bool { if case .schema = output { true } else { false } }
}
