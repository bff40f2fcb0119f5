import Models
import TextGeneration

extension TextModel {
    /// Measures this model's prompt and generation tokens per second here, with this instance's
    /// threads and `adapters` applied; with adapters each repetition first measures the model
    /// without them (`baselinePrompt`, `baselineGeneration`), so their cost is read from one run.
    /// The model is leased through the runtime like any op's; the measurement uses a cache of its own.
    public func benchmark(promptTokens: Int = 512, generationTokens: Int = 128, repetitions: Int = 5,
                          adapters: [LoRA] = []) async throws -> TextBenchmark {
        guard promptTokens > 0, generationTokens > 0, repetitions > 0 else {
            throw OnDeviceError.invalidArgument("promptTokens, generationTokens and repetitions must be positive")
        }
        let threads = ai.modelThreads
        return try await ai.withTextSession(model: id) { session, lease, _, _ in
            var bench = LLMBenchmark(threads: threads)
            bench.promptTokens = promptTokens
            bench.generationTokens = generationTokens
            bench.repetitions = repetitions
            for a in adapters {
                do { bench.adapters.append(ScaledAdapter(try lease.lease.model.adapter(path: a.path), scale: a.scale)) } catch {
                    throw OnDeviceError.adapterUnusable(path: a.path, reason: String(describing: error))
                }
            }
            let report = try bench.run(model: session.model)
            let figure = { (f: LLMBenchmark.Figure) in TextBenchmark.Figure(mean: f.mean, standardDeviation: f.stddev, samples: f.samples) }
            return TextBenchmark(promptTokens: promptTokens, generationTokens: generationTokens, repetitions: repetitions,
                                 threads: threads, adapters: adapters, prompt: figure(report.prompt), generation: figure(report.generation),
                                 baselinePrompt: report.baseline.map { figure($0.prompt) },
                                 baselineGeneration: report.baseline.map { figure($0.generation) },
                                 kernelTier: report.kernelTier,
                                 threadActivity: .init(splitJobs: report.pool.split, stalls: report.pool.stalls, aloneJobs: report.pool.alone))
        }
    }
}
