import Foundation
import OnDevice
import Testing
import TestSupport

/// `ondevice bench` and the public `TextModel.benchmark` it prints: llama-bench's figures, with
/// and without an adapter (interleaved, with the adapter's cost), on the installed SmolLM2 (no
/// timing is asserted, only that each figure is measured and reported).
@Suite struct BenchCLITests {
    static let adapter = GoldenFiles.root.appendingPathComponent("lora/smollm2-135m-instruct-pirate-lora-f16.gguf").path

    @Test func `bench prints pp and tg with and without an adapter, from the public API`() async throws {
        _ = try #require(TestModels.path(TestModels.smolLM2), "SmolLM2 not installed: run scripts/setup.sh")
        let out = try await CLIRunner.run(["bench", "--model", "smollm2-135m-instruct-q4_1", "--threads", "1", "--prompt-tokens", "16",
                                           "--gen-tokens", "4", "--repetitions", "2", "--lora", Self.adapter + ":0.5", "--json"])
        #expect(out.status == 0, "\(out.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any])
        #expect(report["model"] as? String == TestModels.smolLM2)
        #expect(report["architecture"] as? String == "llama" && report["quantization"] as? String == "Q4_1")
        #expect(report["threads"] as? Int == 1 && report["prompt_tokens"] as? Int == 16 && report["generation_tokens"] as? Int == 4)
        #expect((report["prompt_tokens_per_second"] as? Double ?? 0) > 0 && (report["generation_tokens_per_second"] as? Double ?? 0) > 0)
        #expect(["avx512", "avx2", "neon", "scalar"].contains(report["kernel_tier"] as? String ?? ""), "\(report)")
        let lora = try #require(report["lora"] as? [String: Any])
        #expect((lora["generation_tokens_per_second"] as? Double ?? 0) > 0)
        #expect(lora["generation_cost"] is Double && lora["prompt_cost"] is Double, "\(lora)")
        let adapters = try #require(lora["adapters"] as? [[String: Any]])
        #expect(adapters.count == 1)
        #expect(adapters.first?["rank"] as? Int == 8 && adapters.first?["alpha"] as? Double == 16 && adapters.first?["scale"] as? Double == 0.5)
        // The pirate adapter reads its 210 packed pairs a token: 4.7 MiB, 5% of SmolLM2's weights.
        let bytes = try #require(lora["bytes_per_token"] as? Int), share = try #require(lora["weight_share"] as? Double)
        #expect(bytes == adapters.first?["bytes"] as? Int && bytes > 4_800_000 && bytes < 5_000_000, "\(lora)")
        #expect(share > 0.045 && share < 0.055, "\(lora)")

        let text = try await CLIRunner.run(["bench", "--model", "smollm2-135m-instruct-q4_1", "--threads", "1", "--prompt-tokens", "8",
                                            "--gen-tokens", "2", "--repetitions", "1"])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("| pp8 |") && text.stdout.contains("| tg2 |") && text.stdout.contains("kernels: "), "\(text.stdout)")
    }

    @Test func `benchmark counts its repetitions, applies adapters and refuses what it cannot measure`() async throws {
        let path = try #require(TestModels.path(TestModels.smolLM2), "SmolLM2 not installed: run scripts/setup.sh")
        var c = OnDeviceAI.Configuration()
        c.threads = 1
        c.keepAliveSeconds = 0
        let ai = OnDeviceAI(configuration: c)
        let model = ai.textModel(path)
        let plain = try await model.benchmark(promptTokens: 8, generationTokens: 3, repetitions: 3)
        #expect(plain.threads == 1 && plain.repetitions == 3 && plain.adapters.isEmpty)
        #expect(plain.prompt.samples.count == 3 && plain.generation.samples.count == 3)
        #expect(plain.prompt.samples.allSatisfy { $0 > 0 } && plain.generation.mean > 0)
        #expect(plain.baselinePrompt == nil && plain.baselineGeneration == nil)
        let adapted = try await model.benchmark(promptTokens: 8, generationTokens: 3, repetitions: 2, adapters: [LoRA(path: Self.adapter)])
        #expect(adapted.adapters == [LoRA(path: Self.adapter)] && adapted.generation.samples.count == 2)
        // Each adapted repetition has its base twin from the same run.
        #expect(adapted.baselinePrompt?.samples.count == 2 && adapted.baselineGeneration?.samples.count == 2)
        #expect(adapted.baselineGeneration?.samples.allSatisfy { $0 > 0 } == true)
        do {
            _ = try await model.benchmark(repetitions: 0)
            Issue.record("zero repetitions were measured")
        } catch let error as OnDeviceError {
            #expect(error.code == .invalidArgument)
        }
        do {
            _ = try await model.benchmark(promptTokens: 8, generationTokens: 1, repetitions: 1, adapters: [LoRA(path: "/no/such/adapter.gguf")])
            Issue.record("a missing adapter was applied")
        } catch let error as OnDeviceError {
            #expect(error.code == .adapterUnusable)
        }
        #expect(try await ai.activeLeases() == 0)
    }
}
