import EngineSupport
import Foundation
import Kernels
import Models
import StructuredOutput

/// Prompt-processing and generation throughput measured the way llama.cpp's `llama-bench`
/// does: `pp` = one batch of `promptTokens` tokens into an empty cache; `tg` = `generationTokens`
/// single-token evaluations from an empty cache. Token ids are pseudo-random but seeded.
package struct LLMBenchmark {
    package var promptTokens = 512
    package var generationTokens = 128
    package var repetitions = 5
    package var threads: Int
    /// LoRA adapters applied to every evaluation (empty: the base model), to measure their cost.
    package var adapters: [ScaledAdapter] = []

    package init(threads: Int) { self.threads = threads }

    /// Mean and sample standard deviation of tokens per second over the repetitions.
    package struct Figure: Sendable, Equatable {
        package var mean: Double
        package var stddev: Double
        package var samples: [Double]

        init(_ samples: [Double]) {
            self.samples = samples
            let m = samples.reduce(0, +) / Double(max(samples.count, 1))
            let v = samples.count > 1 ? samples.map { ($0 - m) * ($0 - m) }.reduce(0, +) / Double(samples.count - 1) : 0
            mean = m
            stddev = v.squareRoot()
        }
    }

    package struct Report: Sendable, Equatable {
        package var prompt: Figure
        package var generation: Figure
        /// The SIMD tier the kernels ran on.
        package var kernelTier: String
        /// What the compute pool did during the run: stalls mean other work had the cores.
        package var pool: ComputePool.Counters
    }

    package func run(model: LanguageModel) throws(EngineError) -> Report {
        let session = Session(model: model, contextLength: max(promptTokens, generationTokens) + 1, threads: threads)
        try session.setAdapters(adapters)
        var rng = SplitMix64(seed: 1234)
        let vocab = UInt64(model.config.vocabularySize)
        let prompt = (0..<promptTokens).map { _ in Int32(rng.next() % vocab) }
        let clock = ContinuousClock()
        let poolBefore = ComputePool.counters
        // Warm-up (page in the weights, size the scratch), not counted.
        session.reset()
        try session.evaluate(prompt.prefix(min(32, prompt.count)))
        var pp: [Double] = [], tg: [Double] = []
        for _ in 0..<repetitions {
            session.reset()
            let t = clock.measure { try? session.evaluate(prompt[...]) }
            pp.append(Double(promptTokens) / t.seconds)

            session.reset()
            var token = Int32(rng.next() % vocab)
            let g = clock.measure {
                for _ in 0..<generationTokens {
                    try? session.evaluate([token][...])
                    token = Int32(rng.next() % vocab)
                }
            }
            tg.append(Double(generationTokens) / g.seconds)
        }
        guard session.tokens.count == generationTokens else {
            throw .contextOverflow(tokens: generationTokens, contextLength: session.contextLength)
        }
        return Report(prompt: Figure(pp), generation: Figure(tg), kernelTier: KernelTier.name,
                      pool: ComputePool.counters - poolBefore)
    }
}
