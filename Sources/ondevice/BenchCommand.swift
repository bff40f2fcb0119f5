import Foundation
import TextGeneration

/// `ondevice bench`: prompt and generation tokens/s, printed with the model, quantization,
/// size and threads, like llama.cpp's `llama-bench` (pp512 / tg128).
enum BenchCommand {
    static func run(_ args: ArraySlice<String>) async throws {
        let a = try Arguments(args, options: ["model", "threads", "prompt-tokens", "gen-tokens", "repetitions", "lora"], flags: ["json"])
        let path = try await ModelLocator.path(for: try a.require("model"))
        let model = try LanguageModel(path: path)
        var bench = LLMBenchmark(threads: try a.int("threads") ?? ProcessInfo.processInfo.activeProcessorCount)
        bench.promptTokens = try a.int("prompt-tokens") ?? 512
        bench.generationTokens = try a.int("gen-tokens") ?? 128
        bench.repetitions = try a.int("repetitions") ?? 5
        guard bench.threads > 0, bench.promptTokens > 0, bench.generationTokens > 0, bench.repetitions > 0 else {
            throw CLIError.io("--threads, --prompt-tokens, --gen-tokens and --repetitions must be positive")
        }
        let report = try bench.run(model: model)
        // With --lora the same figures again with the adapters applied: their cost, side by side.
        let adapters = try await LoRAArgument.all(a, model: model)
        var withLoRA: LLMBenchmark.Report?
        if !adapters.isEmpty {
            var b = bench
            b.adapters = adapters.map(\.scaled)
            withLoRA = try b.run(model: model)
        }
        let name = URL(fileURLWithPath: path).lastPathComponent
        let sizeMiB = Double(model.weightBytes) / 1_048_576
        let loraLabel = adapters.map { "\($0.adapter.name) r\($0.adapter.maxRank) x\($0.scale)" }.joined(separator: ", ")
        if a.has("json") {
            var lora: [String: Any] = [:]
            if let withLoRA {
                lora = ["adapters": adapters.map(\.json),
                        "prompt_tokens_per_second": withLoRA.prompt.mean, "prompt_tokens_per_second_stddev": withLoRA.prompt.stddev,
                        "generation_tokens_per_second": withLoRA.generation.mean,
                        "generation_tokens_per_second_stddev": withLoRA.generation.stddev]
            }
            try printJSON([
                "lora": lora.isEmpty ? NSNull() : lora as Any,
                "model": name, "architecture": model.config.architecture.rawValue, "quantization": model.quantization,
                "size_bytes": model.weightBytes, "threads": bench.threads, "repetitions": bench.repetitions,
                "prompt_tokens": bench.promptTokens, "generation_tokens": bench.generationTokens,
                "prompt_tokens_per_second": report.prompt.mean, "prompt_tokens_per_second_stddev": report.prompt.stddev,
                "generation_tokens_per_second": report.generation.mean,
                "generation_tokens_per_second_stddev": report.generation.stddev,
                "cpu": CPUInfo.summary, "kernel_tier": report.kernelTier,
                "pool": ["split_jobs": report.pool.split, "stalls": report.pool.stalls, "alone_jobs": report.pool.alone],
            ])
            return
        }
        print("| model | arch | quant | size | threads | test | t/s |")
        print("| --- | --- | --- | ---: | ---: | --- | ---: |")
        for (test, f) in [("pp\(bench.promptTokens)", report.prompt), ("tg\(bench.generationTokens)", report.generation)] {
            print(String(format: "| %@ | %@ | %@ | %.1f MiB | %d | %@ | %.2f ± %.2f |", name, model.config.architecture.rawValue,
                         model.quantization, sizeMiB, bench.threads, test, f.mean, f.stddev))
        }
        if let withLoRA {
            for (test, f) in [("pp\(bench.promptTokens)+lora", withLoRA.prompt), ("tg\(bench.generationTokens)+lora", withLoRA.generation)] {
                print(String(format: "| %@ | %@ | %@ | %.1f MiB | %d | %@ | %.2f ± %.2f |", name, model.config.architecture.rawValue,
                             model.quantization, sizeMiB, bench.threads, test, f.mean, f.stddev))
            }
            print("lora: \(loraLabel)")
        }
        print("cpu: \(CPUInfo.summary), kernels: \(report.kernelTier), repetitions: \(bench.repetitions)")
        if report.pool.stalls > 0 {
            print("pool: \(report.pool.stalls) of \(report.pool.split) split jobs stalled on a preempted worker, "
                  + "\(report.pool.alone) ran on one thread meanwhile: other work had the cores")
        }
    }
}

/// The processor's model name and SIMD features, for benchmark reports.
enum CPUInfo {
    static var summary: String {
        guard let info = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return "unknown" }
        let lines = info.split(separator: "\n")
        let name = lines.first { $0.hasPrefix("model name") }.map { String($0.split(separator: ":", maxSplits: 1)[1]).trimmingCharacters(in: .whitespaces) } ?? "unknown"
        let flags = Set(lines.first { $0.hasPrefix("flags") }?.split(separator: " ").map(String.init) ?? [])
        let simd = ["avx2", "fma", "f16c", "avx512f", "avx512_vnni"].filter(flags.contains).joined(separator: ",")
        let cap = ProcessInfo.processInfo.environment["ONDEVICE_KERNELS"].map { "; ONDEVICE_KERNELS=\($0)" } ?? ""
        return "\(name) (\(ProcessInfo.processInfo.activeProcessorCount) cores; \(simd)\(cap))"
    }
}
