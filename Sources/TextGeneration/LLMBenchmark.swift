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

    package struct Baseline: Sendable, Equatable {
        package var prompt: Figure
        package var generation: Figure
    }

    package struct Report: Sendable, Equatable {
        package var prompt: Figure
        package var generation: Figure
        /// With adapters: the same session without them, measured in the same repetitions just
        /// before the adapted figures (interleaved, so a busy machine slows both alike).
        package var baseline: Baseline?
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
        /// One repetition: pp then tg, in tokens per second.
        func repetition() -> (Double, Double) {
            session.reset()
            let t = clock.measure { try? session.evaluate(prompt[...]) }
            session.reset()
            var token = Int32(rng.next() % vocab)
            let g = clock.measure {
                for _ in 0..<generationTokens {
                    try? session.evaluate([token][...])
                    token = Int32(rng.next() % vocab)
                }
            }
            return (Double(promptTokens) / t.seconds, Double(generationTokens) / g.seconds)
        }
        var pp: [Double] = [], tg: [Double] = [], basePP: [Double] = [], baseTG: [Double] = []
        for _ in 0..<repetitions {
            if !adapters.isEmpty {
                try session.setAdapters([])
                let (p, g) = repetition()
                basePP.append(p)
                baseTG.append(g)
                try session.setAdapters(adapters)
            }
            let (p, g) = repetition()
            pp.append(p)
            tg.append(g)
        }
        guard session.tokens.count == generationTokens else {
            throw .contextOverflow(tokens: generationTokens, contextLength: session.contextLength)
        }
        return Report(prompt: Figure(pp), generation: Figure(tg), baseline: adapters.isEmpty ? nil : Baseline(prompt: Figure(basePP), generation: Figure(baseTG)),
                      kernelTier: KernelTier.name, pool: ComputePool.counters - poolBefore)
    }
}
