/// Prompt and generation throughput of a text model on this machine, measured as llama.cpp's
/// `llama-bench` does (`TextModel.benchmark`): `prompt` is one batch of `promptTokens` tokens
/// into an empty cache (pp512), `generation` is `generationTokens` one-token steps from an empty
/// cache (tg128). Token ids are pseudo-random with a fixed seed.
public struct TextBenchmark: Sendable, Equatable {
    /// Tokens per second over the repetitions.
    public struct Figure: Sendable, Equatable {
        public var mean: Double
        /// The sample standard deviation (0 for one repetition).
        public var standardDeviation: Double
        /// Each repetition's tokens per second.
        public var samples: [Double]
    }

    /// What the kernel threads did meanwhile: a stall is a split job that waited for a worker
    /// the system had preempted, so other work had the cores.
    public struct ThreadActivity: Sendable, Equatable {
        public var splitJobs: Int
        public var stalls: Int
        /// Jobs run on one thread because the others were busy.
        public var aloneJobs: Int
    }

    public var promptTokens: Int
    public var generationTokens: Int
    public var repetitions: Int
    public var threads: Int
    /// The adapters applied to every step (empty: the model alone).
    public var adapters: [LoRA]
    public var prompt: Figure
    public var generation: Figure
    /// With adapters, the same session without them, measured in the same repetitions, each just
    /// before the adapted one (so a busy machine slows both alike): the adapters' cost is
    /// `1 - generation.mean / baselineGeneration.mean`. nil without adapters.
    public var baselinePrompt: Figure?
    public var baselineGeneration: Figure?
    /// The kernel tier that ran (`avx512`, `avx2`, `neon`, `scalar`).
    public var kernelTier: String
    public var threadActivity: ThreadActivity
}
