import ModelStore
import Models
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

/// The prompt cache beside a model's session pool.
@Suite struct PromptCacheTests {
    let fixture: RuntimeFixture
    init() throws { fixture = try RuntimeFixture() }

    func lease() async throws -> TextGenerationLease {
        let (llama, _) = fixture.tinyModel("tiny-llama")
        var s = RuntimeSettings()
        s.textModel = "tiny-llama"
        s.contextLength = 128
        s.threads = 1
        let runtime = try await fixture.runtime(fixture.dependencies(settings: s), models: [llama])
        return try await runtime.textGeneration.lease()
    }

    func logits(_ session: Session) -> [Float] { Array(UnsafeBufferPointer(start: session.logits, count: session.vocabularySize)) }

    @Test func `a prompt its session shares little with starts from the copy that holds it`() async throws {
        let lease = try await lease()
        let pool = lease.lease.model
        pool.maxIdleSessions = 1
        pool.promptCache.capacity = 1 << 20
        let a: [Int32] = [1, 40, 41, 42, 43, 44, 45], b: [Int32] = [1, 50, 51, 52, 53, 54, 55]
        try lease.withSession(prompt: a) { _ = try $0.prefill(a) }
        // B rewrites the one session: A's cache is copied aside first.
        try lease.withSession(prompt: b) { _ = try $0.prefill(b) }
        var figures = pool.promptCache.figures
        #expect(figures.saves == 1 && figures.entries == 1 && figures.hits == 0)
        #expect(figures.bytes == KVPrefix.byteCount(config: lease.model.config, count: a.count))
        #expect(pool.residentBytes == pool.mappedBytes + pool.heapBytes + pool.sessionStateBytes + figures.bytes)
        // A again: all but its last token come from the copy; the session's B goes aside too.
        let (reused, restored) = try lease.withSession(prompt: a) { ($0.tokens.count, (try $0.prefill(a), logits($0))) }
        #expect(reused == a.count - 1 && restored.0 == a.count - 1)
        figures = pool.promptCache.figures
        #expect(figures.hits == 1 && figures.restoredTokens == a.count - 2 && figures.saves == 2 && figures.entries == 2)
        // The same logits as a session that evaluated A and then its last token again.
        let reference = Session(model: lease.model, contextLength: 128, threads: 1)
        try reference.prefill(a)
        reference.truncate(to: a.count - 1)
        try reference.evaluate(a[(a.count - 1)...])
        #expect(restored.1 == logits(reference))
        // A session already holding most of a prompt is left alone.
        try lease.withSession(prompt: a + [46]) { let n = try $0.prefill(a + [46]); #expect(n == a.count) }
        #expect(pool.promptCache.figures.hits == 1)
        // Memory pressure drops every copy.
        pool.trim()
        #expect(pool.promptCache.figures.entries == 0 && pool.promptCache.byteCount == 0)
        await lease.release()
    }

    @Test func `the prompt cache keeps the copies used last within its capacity, and none at zero`() async throws {
        let lease = try await lease()
        let pool = lease.lease.model
        pool.maxIdleSessions = 1
        let prompts: [[Int32]] = [[1, 40, 41, 42, 43], [1, 50, 51, 52, 53], [1, 60, 61, 62, 63]]
        // Capacity 0: nothing is copied.
        for p in prompts { try lease.withSession(prompt: p) { _ = try $0.prefill(p) } }
        #expect(pool.promptCache.figures.saves == 0 && pool.promptCache.byteCount == 0)
        // Room for two copies. Each prompt rewrites the session, so what it held is copied aside.
        let one = KVPrefix.byteCount(config: lease.model.config, count: 5)
        pool.promptCache.capacity = 2 * one
        let cached = try prompts.map { p in try lease.withSession(prompt: p) { try $0.prefill(p) } }
        // The third prompt was the session's before: its copy gave all but its last token. Its
        // own copy then made room by dropping the copy used least recently, the first prompt's.
        #expect(cached == [1, 1, 4])
        var figures = pool.promptCache.figures
        #expect(figures.saves == 3 && figures.entries == 2 && figures.bytes == 2 * one && figures.hits == 1)
        try lease.withSession(prompt: prompts[0]) { let n = try $0.prefill(prompts[0]); #expect(n == 1) }
        // A copy of a longer conversation replaces the copy of its prefix.
        let longer = prompts[1] + [54, 55]
        try lease.withSession(prompt: longer) { let n = try $0.prefill(longer); #expect(n == 5) }
        try lease.withSession(prompt: prompts[2]) { _ = try $0.prefill(prompts[2]) }
        figures = pool.promptCache.figures
        #expect(figures.entries == 1 && figures.bytes == KVPrefix.byteCount(config: lease.model.config, count: longer.count))
        // Lowering the capacity drops copies until they fit.
        pool.promptCache.capacity = one
        #expect(pool.promptCache.byteCount <= one)
        await lease.release()
    }
}
