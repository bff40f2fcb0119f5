import OnDevice
import StructuredOutput

/// A parsed `/v1/chat/completions` or `/v1/completions` body (or Ollama's `/api/chat` and
/// `/api/generate`): only the fields we act on; unknown fields are ignored, as
/// OpenAI-compatible servers do. `completion` is what runs: the public API's request.
struct TextRequest {
    typealias Prompt = CompletionRequest.Input
    typealias Output = CompletionRequest.Output

    /// The most replies one request may ask for (`n`): each is a whole generation, run one after
    /// another while the request holds its session.
    static let maxChoices = 8
    /// The most calls one reply makes when `parallel_tool_calls` allows several.
    static let maxParallelCalls = 8
    /// The most alternatives per token `top_logprobs` may ask for.
    static let maxTopLogprobs = TextOptions.maxLogprobs

    var model: String
    var prompt: Prompt
    var output: Output = .text
    var options = TextOptions()
    var stream = false
    var includeUsage = false
    /// `return_token_ids` (an extension, as vLLM names it): the prompt's and the reply's token
    /// ids in the response's choice, so a client can see exactly what the model read and wrote.
    var returnTokenIds = false
    /// `lora`: adapters for this request (see `TextRequest+LoRA.swift`).
    var adapters: [AdapterChoice] = []
    /// `n`: how many replies, each sampled with its own seed drawn from the request's.
    var choices = 1
    /// `parallel_tool_calls`: whether a reply may hold several calls (up to `maxParallelCalls`).
    var parallelToolCalls = true
    /// `logprobs` (with chat's `top_logprobs`): alternatives per token; nil for no logprobs.
    var logprobAlternatives: Int? {
        get { options.logprobs }
        set { options.logprobs = newValue }
    }

    /// Fields shared by both endpoints.
    init(body: JSONValue, prompt: (JSONValue) throws(ServerError) -> Prompt) throws(ServerError) {
        guard case .object = body else { throw .invalidRequest("the body must be a JSON object") }
        guard let model = body["model"]?.string, !model.isEmpty else { throw .invalidRequest("'model' is required (a string)", param: "model") }
        self.model = model
        self.prompt = try prompt(body)
        stream = try Self.optional(body, "stream", \.bool, "a boolean") ?? false
        includeUsage = body["stream_options"]?["include_usage"]?.bool ?? false
        returnTokenIds = try Self.optional(body, "return_token_ids", \.bool, "a boolean") ?? false
        adapters = try Self.adapters(body["lora"])
        if let n = try Self.optional(body, "n", \.integer, "an integer") {
            guard (1...Self.maxChoices).contains(n) else { throw .invalidRequest("n must be between 1 and \(Self.maxChoices)", param: "n") }
            choices = n
        }
        // The engine's one set of defaults (as in the SDK and the CLI) for what the body leaves
        // out; OpenAI samples afresh unless given a seed.
        options.seed = UInt64.random(in: 0...UInt64.max)
        let newer = try Self.optional(body, "max_completion_tokens", \.integer, "an integer")
        let older = try Self.optional(body, "max_tokens", \.integer, "an integer")
        let maxTokens = newer ?? older
        if let maxTokens {
            guard maxTokens >= 1 else { throw .invalidRequest("max_tokens must be at least 1", param: "max_tokens") }
            options.maxTokens = maxTokens
        }
        if let t = try Self.optional(body, "temperature", \.number, "a number") {
            guard (0...2).contains(t) else { throw .invalidRequest("temperature must be between 0 and 2", param: "temperature") }
            options.temperature = Float(t)
        }
        if let p = try Self.optional(body, "top_p", \.number, "a number") {
            guard p > 0 && p <= 1 else { throw .invalidRequest("top_p must be in (0, 1]", param: "top_p") }
            options.topP = Float(p)
        }
        if let seed = try Self.optional(body, "seed", \.integer, "an integer") { options.seed = UInt64(bitPattern: Int64(seed)) }
        switch body["stop"] {
        case nil, .null?: break
        case .string(let s)?: options.stop = [s]
        case .array(let items)?:
            let stops = items.compactMap(\.string)
            guard stops.count == items.count, stops.count <= 4 else { throw .invalidRequest("stop must be a string or up to 4 strings", param: "stop") }
            options.stop = stops
        default: throw .invalidRequest("stop must be a string or an array of strings", param: "stop")
        }
    }

    /// `body[key]` read with `read`; nil when absent or null, 400 when of the wrong type.
    static func optional<T>(_ body: JSONValue, _ key: String, _ read: (JSONValue) -> T?, _ what: String) throws(ServerError) -> T? {
        guard let value = body[key], !value.isNull else { return nil }
        guard let typed = read(value) else { throw .invalidRequest("'\(key)' must be \(what)", param: key) }
        return typed
    }
}

extension GenerationSettings {
    /// `options` with every field this sets; lengths that depend on the context are resolved
    /// against `contextLength`.
    package func applied(to options: TextOptions, contextLength: Int) -> TextOptions {
        var out = options
        if let temperature { out.temperature = temperature }
        if let topP { out.topP = topP }
        if let topK { out.topK = topK }
        if let minP { out.minP = minP }
        if let repetitionPenalty { out.repetitionPenalty = repetitionPenalty }
        switch repetitionWindow {
        case .tokens(let n)?: out.repetitionWindow = n
        case .wholeContext?: out.repetitionWindow = contextLength
        case nil: break
        }
        if let seed { out.seed = seed }
        switch length {
        case .tokens(let n)?: out.maxTokens = n
        case .untilContextFull?: out.maxTokens = contextLength
        case nil: break
        }
        if let stop { out.stop = stop }
        return out
    }
}

extension TextRequest {
    /// A request built by a door other than OpenAI's: the engine's defaults, sampling afresh
    /// unless a seed is set, as `init(body:prompt:)` does.
    init(model: String, prompt: Prompt) {
        self.model = model
        self.prompt = prompt
        options.seed = UInt64.random(in: 0...UInt64.max)
    }

    /// The public API's request: input, output, options and replies.
    var completion: CompletionRequest {
        var c = CompletionRequest(prompt, output: output, options: options)
        c.choices = choices
        c.maxCallsPerReply = parallelToolCalls ? Self.maxParallelCalls : 1
        return c
    }
}
