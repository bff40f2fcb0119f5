import CLISupport
import Foundation
import OnDevice

/// `ondevice bench`: prompt and generation tokens/s, printed with the model, quantization,
/// size and threads, like llama.cpp's `llama-bench` (pp512 / tg128), through the public API's
/// `TextModel.benchmark`.
enum BenchCommand {
    static func run(_ args: ArraySlice<String>) async throws {
        let a = try Arguments(args, options: ["model", "threads", "prompt-tokens", "gen-tokens", "repetitions", "lora"], flags: ["json"])
        let argument = try a.require("model")
        let path = try await ModelLocator.path(for: argument)
        var configuration = OnDeviceAI.Configuration()
        configuration.threads = try a.int("threads") ?? ProcessInfo.processInfo.activeProcessorCount
        let reference = try await ModelLocator.reference(for: argument)
        // The instance's text model, so that `loadedAdapters` describes the adapters it ran.
        configuration.textModel = reference
        let ai = OnDeviceAI(configuration: configuration)
        let model = ai.textModel(reference)
        let promptTokens = try a.int("prompt-tokens") ?? 512, generationTokens = try a.int("gen-tokens") ?? 128
        let repetitions = try a.int("repetitions") ?? 5
        guard configuration.threads ?? 0 > 0, promptTokens > 0, generationTokens > 0, repetitions > 0 else {
            throw CLIError.io("--threads, --prompt-tokens, --gen-tokens and --repetitions must be positive")
        }
        // With --lora the same figures with the adapters applied, each repetition just after one
        // without them: their cost, side by side, from one run.
        let choices = try await LoRAChoice.all(a)
        let measured = try await model.benchmark(promptTokens: promptTokens, generationTokens: generationTokens, repetitions: repetitions,
                                                 adapters: choices.map(\.lora))
        var report = measured
        var withLoRA: TextBenchmark?
        var loaded: [LoadedAdapter] = []
        if let prompt = measured.baselinePrompt, let generation = measured.baselineGeneration {
            withLoRA = measured
            report.prompt = prompt
            report.generation = generation
            loaded = try await ai.loadedAdapters()
        }
        let info = try await model.info()
        let name = URL(fileURLWithPath: path).lastPathComponent
        let sizeMiB = Double(info.weightBytes) / 1_048_576
        let applied = choices.map { choice in (choice, loaded.first { $0.path == choice.path }) }
        let loraLabel = applied.map { choice, adapter in
            "\(adapter?.name ?? choice.source) r\(adapter?.rank ?? 0) x\(choice.scale)"
        }.joined(separator: ", ")
        // What the adapters read per decoded token beside the weights: where decode is bound by
        // memory, about the least they can cost.
        let loraBytes = applied.reduce(0) { $0 + ($1.1?.bytes ?? 0) }
        let loraShare = info.weightBytes > 0 ? Double(loraBytes) / Double(info.weightBytes) : 0
        if a.has("json") {
            var lora: [String: Any] = [:]
            if let withLoRA {
                lora = ["adapters": applied.map { $0.json($1) },
                        "prompt_tokens_per_second": withLoRA.prompt.mean, "prompt_tokens_per_second_stddev": withLoRA.prompt.standardDeviation,
                        "generation_tokens_per_second": withLoRA.generation.mean,
                        "generation_tokens_per_second_stddev": withLoRA.generation.standardDeviation,
                        "prompt_cost": cost(withLoRA.prompt, report.prompt), "generation_cost": cost(withLoRA.generation, report.generation),
                        "bytes_per_token": loraBytes, "weight_share": loraShare]
            }
            try printJSON([
                "lora": lora.isEmpty ? NSNull() : lora as Any,
                "model": name, "architecture": info.architecture, "quantization": info.quantization,
                "size_bytes": info.weightBytes, "threads": report.threads, "repetitions": repetitions,
                "prompt_tokens": promptTokens, "generation_tokens": generationTokens,
                "prompt_tokens_per_second": report.prompt.mean, "prompt_tokens_per_second_stddev": report.prompt.standardDeviation,
                "generation_tokens_per_second": report.generation.mean,
                "generation_tokens_per_second_stddev": report.generation.standardDeviation,
                "cpu": CPUInfo.summary, "kernel_tier": report.kernelTier,
                "pool": ["split_jobs": report.threadActivity.splitJobs, "stalls": report.threadActivity.stalls,
                         "alone_jobs": report.threadActivity.aloneJobs],
            ])
            return
        }
        print("| model | arch | quant | size | threads | test | t/s |")
        print("| --- | --- | --- | ---: | ---: | --- | ---: |")
        var rows = [("pp\(promptTokens)", report.prompt), ("tg\(generationTokens)", report.generation)]
        if let withLoRA { rows += [("pp\(promptTokens)+lora", withLoRA.prompt), ("tg\(generationTokens)+lora", withLoRA.generation)] }
        for (test, f) in rows {
            print(String(format: "| %@ | %@ | %@ | %.1f MiB | %d | %@ | %.2f ± %.2f |", name, info.architecture,
                         info.quantization, sizeMiB, report.threads, test, f.mean, f.standardDeviation))
        }
        if let withLoRA {
            print("lora: \(loraLabel); cost (median of \(repetitions) interleaved pairs): "
                  + String(format: "pp %.1f%%, tg %.1f%%", 100 * cost(withLoRA.prompt, report.prompt), 100 * cost(withLoRA.generation, report.generation)))
            print(String(format: "lora reads %.1f MiB a decoded token, %.1f%% of the weights' %.1f MiB", Double(loraBytes) / 1_048_576,
                         100 * loraShare, sizeMiB))
        }
        print("cpu: \(CPUInfo.summary), kernels: \(report.kernelTier), repetitions: \(repetitions)")
        let activity = report.threadActivity
        if activity.stalls > 0 {
            print("pool: \(activity.stalls) of \(activity.splitJobs) split jobs stalled on a preempted worker, "
                  + "\(activity.aloneJobs) ran on one thread meanwhile: other work had the cores")
        }
    }

    /// The share of speed the adapters cost: 1 - adapted / base, the median over repetitions
    /// (each adapted repetition ran just after its base one).
    static func cost(_ adapted: TextBenchmark.Figure, _ base: TextBenchmark.Figure) -> Double {
        let ratios = zip(adapted.samples, base.samples).map { $0 / $1 }.sorted()
        guard !ratios.isEmpty else { return 0 }
        let middle = ratios.count / 2
        let median = ratios.count % 2 == 1 ? ratios[middle] : (ratios[middle - 1] + ratios[middle]) / 2
        return 1 - median
    }
}
