import StructuredOutput
import Tokenizers
import Tools

/// The one text-op core under every door. The SDK, the CLI and the server state a `TextJob`;
/// this turns it into prompt ids for a model (`plan`: the chat template, one rule for special
/// tokens, schema and tool instructions, the context budget) and runs it on a session (`run`:
/// the output's constraint, stop rules, tool-call gating, parsing). Doors only parse their input
/// and format what comes back, so the same request gives the same tokens through each of them.
package enum TextCore {
    /// A prompt must leave room for this many generated tokens (or `maxTokens`, if fewer).
    package static let minimumGenerationRoom = 16

    /// The job's prompt ids and run options on `model` for a session of `contextLength` tokens.
    package static func plan(_ job: TextJob, model: LanguageModel, contextLength: Int) throws(EngineError) -> TextPlan {
        var prompt = try promptIds(job, model: model)
        let room = min(minimumGenerationRoom, max(1, job.options.maxTokens))
        let limit = max(1, contextLength - room)
        var dropped = 0
        if prompt.count > limit {
            guard job.overflow == .keepEnd else { throw .contextOverflow(tokens: prompt.count, contextLength: limit) }
            dropped = prompt.count - limit
            prompt = Array(prompt.suffix(limit))
        }
        var options = job.options
        switch job.output {
        case .schema: options.stop = []  // a stop string could cut the document
        case .text where !job.tools.isEmpty: options.stop.append(ToolRegistry.callOpen)  // tools offered, no call this turn
        case .text, .toolCall: break
        }
        var grammarOptions = job.grammarOptions
        if case .toolCall = job.output { grammarOptions.maxWhitespace = max(grammarOptions.maxWhitespace, 1) }
        var callTools = job.tools
        if let name = job.callableTool {
            guard let tool = job.tools.tool(named: name) else { throw .invalidSchema(path: "#", reason: "no tool is named '\(name)'") }
            callTools = ToolRegistry([tool])
        }
        return TextPlan(prompt: prompt, options: options, output: job.output, tools: job.tools, callTools: callTools,
                        grammarOptions: grammarOptions, maxCalls: max(1, job.maxCalls), droppedPromptTokens: dropped)
    }

    /// The prompt's token ids. Only a chat template's own text can hold control tokens: every
    /// message, document and tool result is tokenized as text (and so is a raw prompt, unless it
    /// asks for its special tokens).
    package static func promptIds(_ job: TextJob, model: LanguageModel) throws(EngineError) -> [Int32] {
        switch job.input {
        case .tokens(let ids):
            return ids
        case let .raw(text, special):
            return model.tokenizer.encode(text, addBOS: nil, parseSpecial: special)
        case let .user(text, system):
            guard model.hasChatTemplate else {
                guard job.tools.isEmpty else { throw .noChatTemplate }
                // A base model continues text: the schema instruction leads into the document.
                guard case .schema(let schema) = job.output else { return model.tokenizer.encode(text, addBOS: nil, parseSpecial: false) }
                return model.tokenizer.encode("\(text)\n\n\(schema.promptInstruction)\n\nJSON:\n", addBOS: nil, parseSpecial: false)
            }
            var messages = system.map { [ChatMessage(role: .system, content: $0)] } ?? []
            messages.append(ChatMessage(role: .user, content: text))
            return try render(messages, job, model)
        case .chat(let messages):
            guard !messages.isEmpty else { throw .emptyPrompt }
            return try render(messages, job, model)
        }
    }

    private static func render(_ messages: [ChatMessage], _ job: TextJob, _ model: LanguageModel) throws(EngineError) -> [Int32] {
        let template = try model.chatTemplate()
        var messages = messages
        if case .schema(let schema) = job.output { messages = ToolConversation.addingSystem(schema.promptInstruction, to: messages) }
        var definitions: [String]?
        if !job.tools.isEmpty {
            if template.rendersTools {
                definitions = job.tools.tools.map(\.signature.serialized)
            } else {
                messages = ToolConversation.described(messages, tools: job.tools)
            }
        }
        var hasToolRole = true
        if case .gemma = template.family { hasToolRole = false }
        messages = ToolConversation.adapted(messages, rendersTools: template.rendersTools, hasToolRole: hasToolRole)
        do {
            return model.tokenizer.encode(try template.prompt(messages: messages, tools: definitions, addGenerationPrompt: true))
        } catch {
            throw .tokenizer(error)
        }
    }

    /// Runs a plan on `session`: prefill (reusing the session's cached prefix), then decoding
    /// under the output's constraint. `onText` receives the visible reply as it is decoded (never
    /// a call's own text); `isCancelled` is polled before every token. A cancelled run returns
    /// with finish reason `.cancelled`.
    /// `onStart` runs once the plan has passed every check, just before the prompt is evaluated.
    /// With `options.logprobs` set, `onLogprobs` receives, just before each `onText`, the figures
    /// of the tokens whose text that is (the outcome's `logprobs` are the same, joined).
    package static func run(_ plan: TextPlan, on session: Session, isCancelled: () -> Bool = { false },
                            onStart: () -> Void = {}, onText: (String) -> Void = { _ in },
                            onLogprobs: ([TokenLogprob]) -> Void = { _ in }) throws(EngineError) -> TextOutcome {
        let tokenizer = session.model.tokenizer
        let constraint = try constraint(plan, session: session)
        onStart()
        // A token's figures wait until its text is passed on; held text (a possible stop string,
        // an undecided call opening, an unfinished UTF-8 sequence) takes its tokens along.
        var pending: [TokenLogprob] = []
        var visible: [TokenLogprob]? = plan.options.logprobs == nil ? nil : []
        func emit(_ text: String) {
            if !pending.isEmpty {
                onLogprobs(pending)
                visible?.append(contentsOf: pending)
                pending.removeAll()
            }
            onText(text)
        }
        // The reply's text is passed on until a call opens; the call itself is not. A reply that
        // opens a call without the tag (bare JSON, a fence) is stopped at once and written again
        // under the call grammar, as llama.cpp's Hermes parser takes such openings as calls.
        let gated: Bool
        if case .toolCall = plan.output { gated = true } else { gated = false }
        var matcher = StopMatcher(stops: gated ? [ToolRegistry.callOpen] : [])
        var opening: CallOpening?
        if case .toolCall(required: false) = plan.output { opening = CallOpening() }
        var calling = false
        var bareCall = false
        var result = try Generator(session: session, options: plan.options).run(
            prompt: plan.prompt, constraint: constraint, isCancelled: { bareCall || isCancelled() },
            onToken: { _, piece in
            guard !calling, !bareCall else { return }
            var text = piece
            if opening != nil {
                switch opening!.feed(piece) {
                case .undecided: return
                case .answer(let released): text = released
                case .call:
                    bareCall = true
                    return
                }
            }
            let (released, stopped) = matcher.feed(text)
            if !released.isEmpty { emit(released) }
            calling = stopped
        }, onLogprob: { if !tokenizer.isEndOfGeneration($0.id) { pending.append($0) } })
        if bareCall && !isCancelled() {
            let grammar = try Grammar(schema: plan.callTools.callSchema, prefix: .none, options: plan.grammarOptions)
            let call = GrammarConstraint(grammar: grammar, tokenizer: tokenizer)
            // The first pass could end at any point (free text), so its budget was never checked
            // against a call's: a call that cannot fit runs until the budget ends, like a reply
            // cut short, rather than refusing every token.
            let available = min(plan.options.maxTokens, session.contextLength - plan.prompt.count + 1)
            call.finishesWithinBudget = call.minimumBytesToFinish <= available
            var again = try Generator(session: session, options: plan.options).run(prompt: plan.prompt, constraint: call,
                                                                                  isCancelled: isCancelled)
            again.text = ToolRegistry.callOpen + "\n" + again.text
            result = again
        } else if !calling && !bareCall {
            let tail = (opening?.flush() ?? "") + matcher.flush()
            if !tail.isEmpty { emit(tail) }
        }
        if case .toolCall = plan.output, plan.maxCalls > 1 {
            result = try furtherCalls(after: result, plan: plan, session: session, isCancelled: isCancelled)
        }
        switch plan.output {
        case .text:
            return TextOutcome(result: result, content: result.text, calls: [], logprobs: visible)
        case .toolCall:
            let (content, calls) = ToolCallParser.parse(result.text)
            return TextOutcome(result: result, content: content, calls: calls, logprobs: visible)
        case .schema:
            if result.metrics.finishReason == .cancelled { return TextOutcome(result: result, content: result.text, calls: [], logprobs: visible) }
            guard constraint?.minimumBytesToFinish == 0 else { throw .incompleteOutput(result.metrics.finishReason) }
            // A top-level number may end with the space or newline that told the grammar it was done.
            let json = String(result.text.reversed().drop { $0 == " " || $0 == "\n" }.reversed())
            return TextOutcome(result: result, content: json, calls: [], logprobs: visible)
        }
    }
}

extension TextCore {
    /// The constraint a plan's output runs under (nil for free text), after checking that the
    /// shortest output it allows fits in the budget (max tokens and the context) at all.
    package static func constraint(_ plan: TextPlan, session: Session) throws(EngineError) -> GrammarConstraint? {
        let tokenizer = session.model.tokenizer
        let constraint: GrammarConstraint
        switch plan.output {
        case .text:
            return nil
        case .schema(let schema):
            constraint = GrammarConstraint(grammar: try Grammar(schema: schema, options: plan.grammarOptions), tokenizer: tokenizer)
        case .toolCall(let required):
            guard !plan.callTools.isEmpty else { throw .invalidSchema(path: "#", reason: "a tool call needs at least one tool") }
            let prefix: Grammar.Prefix = required ? .literal(ToolRegistry.callOpen) : .freeTextUntil(ToolRegistry.callOpen)
            constraint = GrammarConstraint(grammar: try Grammar(schema: plan.callTools.callSchema, prefix: prefix, options: plan.grammarOptions),
                                           tokenizer: tokenizer)
        }
        let available = min(plan.options.maxTokens, session.contextLength - plan.prompt.count + 1)
        if constraint.minimumBytesToFinish > available {
            throw .tokenBudgetTooSmall(needed: constraint.minimumBytesToFinish, available: available)
        }
        return constraint
    }
}

extension LanguageModel {
    /// Whether the model's metadata declares a chat template (one that fails to compile counts:
    /// using it reports why).
    package var hasChatTemplate: Bool {
        do {
            _ = try chatTemplate()
            return true
        } catch .noChatTemplate {
            return false
        } catch {
            return true
        }
    }
}
