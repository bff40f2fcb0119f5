import StructuredOutput
import TextGeneration

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
    /// Seconds spent evaluating the prompt, and generating the reply after its first token.
    public var promptSeconds: Double = 0
    public var generationSeconds: Double = 0
    public var finishReason: FinishReason = .stop
    /// Model calls the op made (summaries of long texts make several).
    public var modelCalls = 0

    public init() {}

    /// Reads figures written before some fields existed too: a missing field keeps its default.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func value<T: Decodable>(_ key: CodingKeys, _ fallback: T) throws -> T { try c.decodeIfPresent(T.self, forKey: key) ?? fallback }
        timeToFirstToken = try value(.timeToFirstToken, 0)
        promptTokens = try value(.promptTokens, 0)
        cachedPromptTokens = try value(.cachedPromptTokens, 0)
        completionTokens = try value(.completionTokens, 0)
        tokensPerSecond = try value(.tokensPerSecond, 0)
        promptTokensPerSecond = try value(.promptTokensPerSecond, 0)
        promptSeconds = try value(.promptSeconds, 0)
        generationSeconds = try value(.generationSeconds, 0)
        finishReason = try value(.finishReason, .stop)
        modelCalls = try value(.modelCalls, 0)
    }

    mutating func add(_ m: GenerationMetrics, first: Bool) {
        if first { timeToFirstToken = m.timeToFirstToken }
        promptTokens += m.promptTokens
        cachedPromptTokens += m.reusedPromptTokens
        completionTokens += m.completionTokens
        tokensPerSecond = m.generationTokensPerSecond
        promptTokensPerSecond = m.promptTokensPerSecond
        promptSeconds += m.promptSeconds
        generationSeconds += m.generationSeconds
        finishReason = FinishReason(m.finishReason)
        modelCalls += 1
    }
}
