import Engine
import ModelStore
import Runtime
import Testing

/// The stable text feature over tiny models served by the loopback store.
@Suite struct TextGenerationTests {
    let fixture: RuntimeFixture
    init() throws { fixture = try RuntimeFixture() }

    func settings(_ model: String) -> RuntimeSettings {
        var s = RuntimeSettings()
        s.textModel = model
        s.contextLength = 128
        s.threads = 1
        return s
    }

    var greedy: GenerationOptions {
        var o = GenerationOptions()
        o.sampling = .greedy
        o.maxTokens = 6
        return o
    }

    func run(_ feature: TextGenerationFeature, _ prompt: TextPrompt, keepAlive: KeepAlive? = nil) async throws -> GenerationResult {
        var final: GenerationResult?
        for try await event in feature.generate(prompt, options: greedy, keepAlive: keepAlive) {
            if case .finished(let result) = event { final = result }
        }
        return try #require(final)
    }

    @Test func `first use downloads, loads and generates, reporting each step as an event`() async throws {
        let (llama, _) = fixture.tinyModel("tiny-llama")
        let runtime = try await fixture.runtime(fixture.dependencies(settings: settings("tiny-llama")), models: [llama])
        let events = runtime.subscribe()
        let result = try await run(runtime.textGeneration, .user("hello"))
        #expect(result.generatedIds.count == 6 || result.metrics.finishReason != .length)
        var seen: [String] = []
        for await event in events {
            switch event {
            case .downloadStarted: seen.append("downloadStarted")
            case .downloadFinished: seen.append("downloadFinished")
            case .loadStarted: seen.append("loadStarted")
            case .loadFinished(_, let bytes, _):
                seen.append("loadFinished")
                #expect(bytes > 0)
            case .generation(let id, let metrics):
                seen.append("generation")
                #expect(id == "tiny-llama" && metrics.completionTokens == result.generatedIds.count)
            default: break
            }
            if seen.last == "generation" { break }
        }
        #expect(seen == ["downloadStarted", "downloadFinished", "loadStarted", "loadFinished", "generation"])
        #expect(runtime.textGeneration.status == .ready(modelId: "tiny-llama"))
        #expect(await runtime.residency.snapshot().models.map(\.leases) == [0])
    }

    @Test func `a configuration swap changes the model behind the same feature object`() async throws {
        let (llama, _) = fixture.tinyModel("tiny-llama")
        let (gemma, _) = fixture.tinyModel("tiny-gemma", architecture: "gemma3", seed: 11)
        let runtime = try await fixture.runtime(fixture.dependencies(settings: settings("tiny-llama")), models: [llama, gemma])
        let feature = runtime.textGeneration
        let first = try await run(feature, .tokens([1, 40, 41]))
        try await runtime.settings.update { $0.textModel = "tiny-gemma" }
        #expect(runtime.textGeneration === feature)
        let second = try await run(feature, .tokens([1, 40, 41]))
        #expect(await runtime.residency.snapshot().modelIds == ["tiny-llama", "tiny-gemma"])
        #expect(first.generatedIds != second.generatedIds)  // different random weights
        #expect(feature.status == .ready(modelId: "tiny-gemma"))
    }

    @Test func `a warm-up overtaken by a swap drops its result`() async throws {
        let (llama, _) = fixture.tinyModel("tiny-llama")
        let (gemma, _) = fixture.tinyModel("tiny-gemma", architecture: "gemma3", seed: 11)
        var s = settings("tiny-llama")
        s.memoryBudgetBytes = 2_000_000
        let runtime = try await fixture.runtime(fixture.dependencies(settings: s), models: [llama, gemma])
        _ = try await runtime.store.pull("tiny-llama")
        // Another op holds the whole budget, so the warm-up waits for memory.
        let blocker = try await runtime.residency.lease(FakeLoader("blocker", bytes: 2_000_000))
        let warmUp = Task { try await runtime.textGeneration.prepare() }
        while await runtime.residency.snapshot().queued == 0 { await Task.yield() }
        #expect(runtime.textGeneration.status == .preparing)
        try await runtime.settings.update { $0.textModel = "tiny-gemma" }
        await blocker.release()
        #expect(try await warmUp.value == false)
        #expect(runtime.textGeneration.status == .idle)  // not "ready(tiny-llama)"
    }

    @Test func `keep-alive zero on the request unloads the model when the stream ends`() async throws {
        let (llama, _) = fixture.tinyModel("tiny-llama")
        let runtime = try await fixture.runtime(fixture.dependencies(settings: settings("tiny-llama")), models: [llama])
        _ = try await run(runtime.textGeneration, .raw("hi"), keepAlive: .unloadImmediately)
        #expect(await runtime.residency.snapshot().models.isEmpty)
        _ = try await run(runtime.textGeneration, .raw("hi"))
        #expect(await runtime.residency.statistics.reloads == 1)
    }

    @Test func `cancelling a generation releases its lease`() async throws {
        let (llama, _) = fixture.tinyModel("tiny-llama")
        let runtime = try await fixture.runtime(fixture.dependencies(settings: settings("tiny-llama")), models: [llama])
        var options = greedy
        options.maxTokens = 100_000
        let consumer = Task {
            var tokens = 0
            for try await event in runtime.textGeneration.generate(.tokens([1, 40]), options: options) {
                if case .token = event { tokens += 1 }
                if tokens == 3 { break }
            }
            return tokens
        }
        #expect(try await consumer.value == 3)
        var snapshot = await runtime.residency.snapshot()
        while snapshot.models.first?.leases != 0 {
            await Task.yield()
            snapshot = await runtime.residency.snapshot()
        }
        #expect(snapshot.modelIds == ["tiny-llama"])
    }

    @Test func `sessions are pooled: a lease reuses the cached prompt prefix`() async throws {
        let (llama, _) = fixture.tinyModel("tiny-llama")
        let runtime = try await fixture.runtime(fixture.dependencies(settings: settings("tiny-llama")), models: [llama])
        let prompt: [Int32] = [1, 40, 41, 42, 43]
        _ = try await runtime.textGeneration.withSession { session, _ in try session.prefill(prompt) }
        let reused = try await runtime.textGeneration.withSession { session, _ in try session.prefill(prompt + [44]) }
        #expect(reused == prompt.count)
        let lease = try await runtime.textGeneration.lease()
        #expect(lease.lease.model.sessionCounts.live == 1)
        await lease.release()
    }
}
