import TextGeneration

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
    /// How many recent tokens the repetition penalty looks back over.
    public var repetitionWindow: Int = SamplingParameters().repetitionWindow
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
    /// Report each generated token's log-probability with this many most likely alternatives
    /// (0...20; beyond is `invalidArgument`) in `TextResult.logprobs`. nil, the default, computes
    /// nothing.
    public var logprobs: Int?
    /// The most alternatives per token `logprobs` may ask for.
    public static let maxLogprobs = GenerationOptions.maxTopLogprobs

    /// `invalidArgument` when `logprobs` asks for more alternatives than `maxLogprobs`.
    static func checkLogprobs(_ k: Int?) throws {
        if let k, !(0...maxLogprobs).contains(k) {
            throw OnDeviceError.invalidArgument("TextOptions.logprobs must be between 0 and \(maxLogprobs), not \(k)")
        }
    }

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
        g.sampling.repetitionWindow = repetitionWindow
        g.sampling.seed = seed
        g.stop = stop
        g.ignoreEndOfGeneration = ignoreEndOfGeneration
        g.logprobs = logprobs
        return g
    }
}
