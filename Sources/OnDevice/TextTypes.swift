import StructuredOutput
import TextGeneration
import Tokenizers

/// Who said a chat message.
public enum Role: String, Sendable, Equatable, Codable {
    case system, user, assistant, tool
}

/// One chat message.
public struct Message: Sendable, Equatable, Codable {
    public var role: Role
    public var content: String

    public init(role: Role, content: String) {
        self.role = role
        self.content = content
    }

    public static func system(_ text: String) -> Message { Message(role: .system, content: text) }
    public static func user(_ text: String) -> Message { Message(role: .user, content: text) }
    public static func assistant(_ text: String) -> Message { Message(role: .assistant, content: text) }

    var chatMessage: ChatMessage {
        let r: ChatMessage.Role = switch role {
        case .system: .system
        case .user: .user
        case .assistant: .assistant
        case .tool: .tool
        }
        return ChatMessage(role: r, content: content)
    }
}

/// What to do when an input does not fit in the model's context.
public enum OverflowPolicy: Sendable, Equatable {
    /// Fail with `OnDeviceError.inputTooLong` (the default: never a silent truncation).
    case refuse
    /// Keep the end of the input and drop its beginning, so the newest text is seen.
    case keepEnd
}

/// Options shared by every text op. The defaults are the engine's one set, the same for the
/// SDK, the CLI and the server: 512 tokens, temperature 0.8, top-k 40, top-p 0.95, min-p 0.05.
public struct TextOptions: Sendable, Equatable {
    /// Upper bound on generated tokens.
    public var maxTokens: Int = GenerationOptions().maxTokens
    /// 0 = greedy (deterministic).
    public var temperature: Float = SamplingParameters().temperature
    public var topK: Int = SamplingParameters().topK
    public var topP: Float = SamplingParameters().topP
    public var minP: Float = SamplingParameters().minP
    public var repetitionPenalty: Float = SamplingParameters().repetitionPenalty
    /// Seed of the sampler; the same seed and options give the same tokens in every door.
    public var seed: UInt64 = SamplingParameters().seed
    /// Generation stops before any of these strings.
    public var stop: [String] = []
    /// What to do with inputs longer than the context.
    public var overflow: OverflowPolicy = .refuse
    /// Keep generating past the model's end-of-answer token (llama.cpp's `ignore_eos`), until
    /// `maxTokens`, a stop string or the context limit. For benchmarks and tests.
    public var ignoreEndOfGeneration = false
    /// LoRA adapters this request applies to the model (none: the base model).
    public var adapters: [LoRA] = []
    /// Parse control-token text (`<|im_start|>` and the like) in a raw prompt as the model's
    /// special tokens. Only for prompts written by hand in the model's own format: text from
    /// users, documents and tools must stay text, and is, in every other case.
    public var parseSpecialTokens = false

    public init() {}

    /// Deterministic argmax decoding.
    public static var greedy: TextOptions {
        var o = TextOptions()
        o.temperature = 0
        return o
    }

    var generation: GenerationOptions {
        var g = GenerationOptions()
        g.maxTokens = maxTokens
        g.sampling.temperature = temperature
        g.sampling.topK = topK
        g.sampling.topP = topP
        g.sampling.minP = minP
        g.sampling.repetitionPenalty = repetitionPenalty
        g.sampling.seed = seed
        g.stop = stop
        g.ignoreEndOfGeneration = ignoreEndOfGeneration
        return g
    }
}

/// Why generation ended.
public enum FinishReason: String, Sendable, Equatable, Codable {
    /// The model finished its answer.
    case stop
    /// A caller-supplied stop string appeared.
    case stopSequence = "stop_sequence"
    /// `maxTokens` were generated.
    case length
    /// The context filled up.
    case contextFull = "context_full"
    /// The caller cancelled.
    case cancelled

    init(_ r: StructuredOutput.FinishReason) {
        switch r {
        case .endOfGeneration, .grammarComplete: self = .stop
        case .stopSequence: self = .stopSequence
        case .length: self = .length
        case .contextFull: self = .contextFull
        case .cancelled: self = .cancelled
        }
    }
}

/// Measured figures of one text op (summed over every model call it made).
public struct TextMetrics: Sendable, Equatable, Codable {
    /// Seconds from the call to the first generated token.
    public var timeToFirstToken: Double = 0
    public var promptTokens = 0
    /// Prompt tokens served from the KV cache (chat turns, repeated prefixes).
    public var cachedPromptTokens = 0
    public var completionTokens = 0
    /// Generated tokens per second.
    public var tokensPerSecond: Double = 0
    /// Prompt tokens evaluated per second (those not served from the cache).
    public var promptTokensPerSecond: Double = 0
    public var finishReason: FinishReason = .stop
    /// Model calls the op made (summaries of long texts make several).
    public var modelCalls = 0

    public init() {}

    mutating func add(_ m: GenerationMetrics, first: Bool) {
        if first { timeToFirstToken = m.timeToFirstToken }
        promptTokens += m.promptTokens
        cachedPromptTokens += m.reusedPromptTokens
        completionTokens += m.completionTokens
        tokensPerSecond = m.generationTokensPerSecond
        promptTokensPerSecond = m.promptTokensPerSecond
        finishReason = FinishReason(m.finishReason)
        modelCalls += 1
    }
}

/// The outcome of a text op.
public struct TextResult: Sendable, Equatable {
    public var text: String
    public var metrics: TextMetrics
    /// The prompt's token ids as the model saw them (of the op's last model call).
    public var promptTokenIDs: [Int32] = []
    /// The generated token ids (of the op's last model call), end-of-generation token included.
    public var tokenIDs: [Int32] = []

    public init(text: String, metrics: TextMetrics, promptTokenIDs: [Int32] = [], tokenIDs: [Int32] = []) {
        self.text = text
        self.metrics = metrics
        self.promptTokenIDs = promptTokenIDs
        self.tokenIDs = tokenIDs
    }

    /// One model call's reply, with `metrics` for the whole op (the call's own by default).
    init(_ outcome: TextOutcome, metrics: TextMetrics? = nil) {
        var m = TextMetrics()
        m.add(outcome.result.metrics, first: true)
        self.init(text: outcome.content, metrics: metrics ?? m, promptTokenIDs: outcome.result.promptIds,
                  tokenIDs: outcome.result.generatedIds)
    }
}

/// Progress of a multi-step op (a long summary works through its chunks).
public struct OpProgress: Sendable, Equatable {
    public var completedSteps: Int
    public var totalSteps: Int
    public var stage: String
}

/// What a text stream yields: text as it is generated, progress of multi-step work, and one
/// final event with the whole result.
public enum TextEvent: Sendable, Equatable {
    /// New text (append it to what came before).
    case partial(String)
    /// A step of a multi-step op finished.
    case progress(OpProgress)
    /// The op finished (also after cancellation, with `finishReason == .cancelled`).
    case finished(TextResult)
}
