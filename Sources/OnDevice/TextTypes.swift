import Engine
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

/// Options shared by every text op.
public struct TextOptions: Sendable, Equatable {
    /// Upper bound on generated tokens.
    public var maxTokens: Int = 512
    /// 0 = greedy (deterministic).
    public var temperature: Float = 0.7
    public var topK: Int = 40
    public var topP: Float = 0.95
    public var minP: Float = 0.05
    public var repetitionPenalty: Float = 1.0
    public var seed: UInt64 = 0
    /// Generation stops before any of these strings.
    public var stop: [String] = []
    /// What to do with inputs longer than the context.
    public var overflow: OverflowPolicy = .refuse
    /// Keep generating past the model's end-of-answer token (llama.cpp's `ignore_eos`), until
    /// `maxTokens`, a stop string or the context limit. For benchmarks and tests.
    public var ignoreEndOfGeneration = false
    /// LoRA adapters this request applies to the model (none: the base model).
    public var adapters: [LoRA] = []

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

    init(_ r: Engine.FinishReason) {
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
        finishReason = FinishReason(m.finishReason)
        modelCalls += 1
    }
}

/// The outcome of a text op.
public struct TextResult: Sendable, Equatable {
    public var text: String
    public var metrics: TextMetrics
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
