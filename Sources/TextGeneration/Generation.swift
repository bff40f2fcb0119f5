import Foundation
import Models
import StructuredOutput

/// Options of one generation call. The defaults are the one set every door shares (SDK, CLI,
/// server); a door overrides only what its request states.
package struct GenerationOptions: Sendable, Equatable {
    package var maxTokens: Int = 512
    package var sampling = SamplingParameters()
    /// Generation stops before any of these strings would be emitted.
    package var stop: [String] = []
    /// Never end on an end-of-generation token (llama.cpp's `ignore_eos`): generate until
    /// `maxTokens`, a stop string or the context limit. For benchmarks and tests.
    package var ignoreEndOfGeneration = false
    /// LoRA adapters and their scales for this call (several add their deltas); empty runs the
    /// base model. The session switches to them before the prompt (clearing its cache if they
    /// changed), so sessions over one model can each use their own.
    package var adapters: [ScaledAdapter] = []
    /// Each generated token's logprob with this many most likely alternatives (0...20; see
    /// `TokenLogprob` for which distribution). nil, the default, computes nothing.
    package var logprobs: Int?
    package init() {}

    /// The most alternatives `logprobs` may ask for (OpenAI's limit for `top_logprobs`).
    package static let maxTopLogprobs = 20
}

/// Measured figures of one generation.
package struct GenerationMetrics: Sendable, Equatable, Codable {
    package var promptTokens = 0
    /// Prompt tokens served from the KV cache instead of evaluated.
    package var reusedPromptTokens = 0
    package var completionTokens = 0
    /// Seconds from the call to the first generated token.
    package var timeToFirstToken = 0.0
    package var promptSeconds = 0.0
    package var generationSeconds = 0.0
    package var finishReason = FinishReason.length

    package init() {}

    /// Evaluated prompt tokens per second.
    package var promptTokensPerSecond: Double {
        promptSeconds > 0 ? Double(promptTokens - reusedPromptTokens) / promptSeconds : 0
    }

    /// Generated tokens per second, counted after the first (which the prompt pass produced).
    package var generationTokensPerSecond: Double {
        completionTokens > 1 && generationSeconds > 0 ? Double(completionTokens - 1) / generationSeconds : 0
    }
}

/// The outcome of a generation.
package struct GenerationResult: Sendable, Equatable {
    package var promptIds: [Int32]
    package var generatedIds: [Int32]
    package var text: String
    package var metrics: GenerationMetrics
    /// One per generated id, in order, when `GenerationOptions.logprobs` was set (nil for a
    /// reply the text core joined from several calls; its visible tokens' are in `TextOutcome`).
    package var logprobs: [TokenLogprob]? = nil
}
