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
