import StructuredOutput
import TextGeneration
import Tokenizers
import Tools

/// One text request on a leased session, through the engine's text core (the same prompt
/// rendering, constraints, defaults and tool-call gating as the SDK and the CLI): the request
/// becomes a `TextJob`, its outcome the wire's content, calls and finish reason.
struct TextRun {
    struct Outcome {
        var content: String
        var calls: [ToolCall]
        var finishReason: String
        var metrics: GenerationMetrics
        /// The prompt's and the reply's token ids (`return_token_ids`).
        var promptIds: [Int32] = []
        var generatedIds: [Int32] = []
        /// The content's tokens with their logprobs, when the request asked for them.
        var logprobs: [TokenLogprob]?
    }

    /// A generated token's logprob and its alternatives, as the engine figures them.
    typealias Logprob = TokenLogprob

    let request: TextRequest
    let session: Session

    var job: TextJob {
        let input: TextInput = switch request.prompt {
        case .chat(let messages): .chat(messages)
        case .raw(let text): .raw(text)
        case .user(let text, let system): .user(text, system: system)
        }
        var job = TextJob(input, options: request.options)
        switch request.output {
        case .text: break
        case .schema(let schema): job.output = .schema(schema)
        case .tools(let registry, let required, let only):
            job.tools = registry
            job.output = .toolCall(required: required)
            job.callableTool = only
            job.maxCalls = request.parallelToolCalls ? TextRequest.maxParallelCalls : 1
        case .describedTools(let registry):
            job.tools = registry  // with text output the core stops where a call would open
        }
        return job
    }

    /// Generates reply `choice` (of the request's `n`, with that choice's seed). `onText` gets
    /// visible text (never a tool call's own text) and `onLogprobs` that text's tokens, just
    /// before it; `isCancelled` is polled every token; `onStart` runs once the request has
    /// passed every check. Returns nil when cancelled.
    func run(choice: Int = 0, isCancelled: () -> Bool, onStart: () -> Void = {}, onText: (String) -> Void,
             onLogprobs: ([TokenLogprob]) -> Void = { _ in }) throws(ServerError) -> Outcome? {
        var plan: TextPlan
        do { plan = try TextCore.plan(job, model: session.model, contextLength: session.contextLength) } catch {
            throw Self.requestError(error, model: request.model)
        }
        plan.options.sampling = plan.options.sampling.choice(choice)
        let outcome: TextOutcome
        do {
            outcome = try TextCore.run(plan, on: session, isCancelled: isCancelled, onStart: onStart, onText: onText, onLogprobs: onLogprobs)
        } catch .tokenBudgetTooSmall(let needed, let available) {
            throw .invalidRequest("max_tokens \(available) is too small for the requested output (needs \(needed))", param: "max_tokens")
        } catch let error where Self.isRequestError(error) {
            throw Self.requestError(error, model: request.model)
        } catch {
            throw .modelFailed(model: request.model, reason: error.description)
        }
        if outcome.isCancelled { return nil }
        let calls = outcome.calls.compactMap { if case .call(let c) = $0 { c } else { nil } }
        let finish: String = switch outcome.finishReason {
        case .length, .contextFull: "length"
        default: calls.isEmpty ? "stop" : "tool_calls"
        }
        return Outcome(content: outcome.content, calls: calls, finishReason: finish, metrics: outcome.result.metrics,
                       promptIds: outcome.result.promptIds, generatedIds: outcome.result.generatedIds, logprobs: outcome.logprobs)
    }

    private static func isRequestError(_ error: EngineError) -> Bool {
        switch error {
        case .invalidSchema, .unsupportedSchema: true
        default: false
        }
    }

    /// What the client asked for that this model cannot do, as a 400 naming the field.
    static func requestError(_ error: EngineError, model: String) -> ServerError {
        switch error {
        case .noChatTemplate:
            .invalidRequest("model '\(model)' has no chat template; use /v1/completions", param: "model")
        case let .contextOverflow(tokens, limit):
            .invalidRequest("the prompt has \(tokens) tokens; this model's context leaves room for \(limit)", param: "messages")
        case .emptyPrompt:
            .invalidRequest("the prompt is empty", param: "messages")
        case .tokenizer(let detail):
            .invalidRequest("cannot render the conversation: \(detail)", param: "messages")
        case .invalidSchema, .unsupportedSchema:
            .invalidRequest("cannot build the output grammar: \(error)", param: "response_format")
        default:
            .modelFailed(model: model, reason: error.description)
        }
    }
}
