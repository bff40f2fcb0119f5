import ModelStore
import Runtime
import Testing
import TextGeneration

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

    /// One model call through the text core on a leased session, reported as ops report it.
    func run(_ feature: TextGenerationFeature, _ input: TextInput, keepAlive: KeepAlive? = nil) async throws -> GenerationResult {
        let lease = try await feature.lease(keepAlive: keepAlive)
        let options = greedy
        let outcome = try lease.withSession { session in
            try TextCore.run(TextCore.plan(TextJob(input, options: options), model: session.model, contextLength: session.contextLength),
                             on: session)
        }
        lease.report(outcome.result.metrics)
        await lease.release()
        return outcome.result
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

    @Test func `with its prompt, a request gets the idle session that holds the most of it`() async throws {
        let (llama, _) = fixture.tinyModel("tiny-llama")
        let runtime = try await fixture.runtime(fixture.dependencies(settings: settings("tiny-llama")), models: [llama])
        let lease = try await runtime.textGeneration.lease()
        let pool = lease.lease.model
        pool.maxIdleSessions = 3
        // Three conversations on three sessions at once, checked in in this order.
        let conversations: [[Int32]] = [[1, 40, 41, 42, 43], [1, 50, 51, 52], [1, 60, 61]]
        let slots = conversations.map { _ in pool.checkOut(contextLength: lease.contextLength, threads: 1) }
        for (slot, tokens) in zip(slots, conversations) { try slot.session.prefill(tokens) }
        for slot in slots { pool.checkIn(slot) }
        // A prompt no session holds any of: the last one checked in, as without a prompt.
        #expect(lease.withSession(prompt: [7, 8]) { $0.tokens } == conversations[2])
        // The first conversation again with a new turn: its session, though another came back last.
        let next = conversations[0] + [44, 45]
        #expect(lease.withSession(prompt: next) { $0.tokens } == conversations[0])
        // That one came back last, so it is what a request without a prompt gets now.
        #expect(lease.withSession { $0.tokens } == conversations[0])
        #expect(pool.sessionCounts.live == 3)
        await lease.release()
    }
}
