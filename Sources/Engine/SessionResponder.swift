import Tokenizers

/// Assistant turns on a model: renders the conversation with the model's chat template,
/// generates on the session (its KV cache reuses the conversation's prefix turn after turn)
/// and constrains tool calls with the registry's grammar, so a call always parses and names a
/// registered tool with arguments valid for it.
///
/// Not thread-safe: one conversation drives a responder at a time.
package final class SessionResponder: AssistantResponding {
    package let session: Session
    package let template: ChatTemplate
    package var options: GenerationOptions
    /// A call may use a little whitespace (`<tool_call>\n{"name": …}` as Hermes examples do).
    package var grammarOptions: Grammar.Options

    package init(session: Session, options: GenerationOptions) throws(EngineError) {
        self.session = session
        self.template = try session.model.chatTemplate()
        self.options = options
        var g = Grammar.Options()
        g.maxWhitespace = 1
        self.grammarOptions = g
    }

    package var rendersTools: Bool { template.rendersTools }

    package func respond(to messages: [ChatMessage], tools: ToolChoice,
                         onText: @escaping @Sendable (String) -> Void) async throws -> AssistantReply {
        try await respond(to: messages, tools: tools, offered: ToolRegistry(), onText: onText)
    }

    package func respond(to messages: [ChatMessage], tools: ToolChoice, offered: ToolRegistry,
                         onText: @escaping @Sendable (String) -> Void) async throws -> AssistantReply {
        let tokenizer = session.model.tokenizer
        // Templates that lay tools out get their definitions on every turn (the prompt prefix,
        // and so the KV cache, stays the same from turn to turn).
        let definitions = rendersTools && !offered.isEmpty ? offered.tools.map(\.signature.serialized) : nil
        let prompt = tokenizer.encode(try template.prompt(messages: Self.adapt(messages, to: template), tools: definitions,
                                                          addGenerationPrompt: true))
        var o = options
        var constraint: GrammarConstraint?
        switch tools {
        case .none:
            o.stop.append(ToolRegistry.callOpen)
        case .auto(let registry):
            let grammar = try Grammar(schema: registry.callSchema, prefix: .freeTextUntil(ToolRegistry.callOpen), options: grammarOptions)
            constraint = GrammarConstraint(grammar: grammar, tokenizer: tokenizer)
        case .required(let registry):
            let grammar = try Grammar(schema: registry.callSchema, prefix: .literal(ToolRegistry.callOpen), options: grammarOptions)
            constraint = GrammarConstraint(grammar: grammar, tokenizer: tokenizer)
        }
        if let constraint {
            let available = min(o.maxTokens, session.contextLength - prompt.count + 1)
            if constraint.minimumBytesToFinish > available {
                throw EngineError.tokenBudgetTooSmall(needed: constraint.minimumBytesToFinish, available: available)
            }
        }
        // The answer's text is passed on until a call opens; the call itself is not. A reply
        // that opens a call without the tag is stopped at once and written again as a call.
        var matcher = StopMatcher(stops: [ToolRegistry.callOpen])
        var opening: CallOpening?
        if case .auto = tools { opening = CallOpening() }
        var calling = false
        var result: GenerationResult?
        // A call opened without its tag stops this generation; the session is used again only
        // after the stream has finished.
        let stopper = CancellationFlag()
        var bareCallOpened = false
        for try await event in generateStream(session: session, prompt: prompt, options: o, constraint: constraint, stopper: stopper) {
            switch event {
            case .token(_, let piece):
                guard !calling else { continue }
                var text = piece
                if opening != nil {
                    switch opening!.feed(piece) {
                    case .undecided: continue
                    case .answer(let released): text = released
                    case .call:
                        bareCallOpened = true
                        stopper.cancel()
                        continue
                    }
                }
                let (emit, stopped) = matcher.feed(text)
                if !emit.isEmpty { onText(emit) }
                calling = stopped
            case .finished(let r):
                result = r
            }
        }
        if bareCallOpened, case .auto(let registry) = tools {
            try Task.checkCancellation()
            return try await bareCall(prompt: prompt, registry: registry)
        }
        if !calling {
            let tail = (opening?.flush() ?? "") + matcher.flush()
            if !tail.isEmpty { onText(tail) }
        }
        guard let result else { throw EngineError.cancelled }
        if result.metrics.finishReason == .cancelled { throw CancellationError() }
        return AssistantReply(text: result.text, metrics: result.metrics)
    }

    /// The call a reply opened without its tag, written again from the same prompt under the
    /// call grammar with the document starting at its first byte (as the model began it), and
    /// recorded with the tag so it parses like any other call.
    private func bareCall(prompt: [Int32], registry: ToolRegistry) async throws -> AssistantReply {
        let grammar = try Grammar(schema: registry.callSchema, prefix: .none, options: grammarOptions)
        let constraint = GrammarConstraint(grammar: grammar, tokenizer: session.model.tokenizer)
        var result: GenerationResult?
        for try await event in generateStream(session: session, prompt: prompt, options: options, constraint: constraint) {
            if case .finished(let r) = event { result = r }
        }
        guard let result else { throw EngineError.cancelled }
        if result.metrics.finishReason == .cancelled { throw CancellationError() }
        return AssistantReply(text: ToolRegistry.callOpen + "\n" + result.text, metrics: result.metrics)
    }

    /// Templates without a tool role (Gemma) get tool results as user turns.
    static func adapt(_ messages: [ChatMessage], to template: ChatTemplate) -> [ChatMessage] {
        guard case .gemma = template.family else { return messages }
        return messages.map { $0.role == .tool ? ChatMessage(role: .user, content: $0.content) : $0 }
    }
}
