import ModelStore
import Runtime
import Synchronization
import Testing

/// The residency actor with fake models, a fixed memory probe and a manual clock.
@Suite struct ResidencyTests {
    let clock = ManualClock()
    let events = EventBus<RuntimeEvent>(defaultBufferSize: 1024)

    func residency(budget: Int, keepAlive: KeepAlive = .standard) -> Residency {
        Residency(policy: MemoryBudgetPolicy(overrideBytes: budget), keepAlive: keepAlive,
                  memoryProbe: FixedMemoryProbe(MemorySnapshot(memAvailable: 1 << 40)), clock: clock, events: events)
    }

    @Test func `the budget follows MemAvailable, the cgroup headroom when lower, and the fraction`() async {
        let machine = MemorySnapshot(memAvailable: 8_000, cgroupLimit: 10_000, cgroupHeadroom: 6_000)
        let r = Residency(policy: MemoryBudgetPolicy(fraction: 0.5), memoryProbe: FixedMemoryProbe(machine), clock: clock)
        #expect(await r.budget == 3_000)
        await r.configure(policy: MemoryBudgetPolicy(fraction: 0.5, overrideBytes: 1234), keepAlive: .standard)
        #expect(await r.budget == 1234)
    }

    @Test func `evictions follow least-recent use across models`() async throws {
        let r = residency(budget: 300)
        let log = LoadLog()
        for id in ["a", "b", "c"] {
            try await r.lease(FakeLoader(id, bytes: 100, log: log)).release()
        }
        try await r.lease(FakeLoader("a", bytes: 100, log: log)).release()  // a is now the most recent
        let subscription = events.subscribe()
        try await r.lease(FakeLoader("d", bytes: 100, log: log)).release()
        let evicted = await nextEvent(subscription) { $0.unloadedId != nil }
        #expect(evicted == .evicted(modelId: "b", bytes: 100, reason: .budget(forModel: "d")))
        #expect(await r.snapshot().modelIds == ["c", "a", "d"])
        #expect(log.count("a") == 1)  // the second lease of a was a hit
    }

    @Test func `the resident total never exceeds the budget`() async throws {
        let r = residency(budget: 250)
        for (i, id) in ["a", "b", "c", "d", "e", "a", "c"].enumerated() {
            try await r.lease(FakeLoader(id, bytes: 60 + 20 * i)).release()
            let snapshot = await r.snapshot()
            #expect(snapshot.usedBytes <= 250)
        }
    }

    @Test func `an oversized model is refused with a typed error and never loaded`() async {
        let r = residency(budget: 300)
        let log = LoadLog()
        await #expect(throws: RuntimeError.exceedsBudget(modelId: "huge", needed: 301, budget: 300)) {
            try await r.lease(FakeLoader("huge", bytes: 301, log: log))
        }
        #expect(log.total == 0)
    }

    @Test func `reloading after eviction is a cache miss, not an error`() async throws {
        let r = residency(budget: 100)
        let log = LoadLog()
        try await r.lease(FakeLoader("a", bytes: 100, log: log)).release()
        try await r.lease(FakeLoader("b", bytes: 100, log: log)).release()  // evicts a
        let again = try await r.lease(FakeLoader("a", bytes: 100, log: log))
        #expect(again.model.modelId == "a")
        await again.release()
        #expect(log.count("a") == 2)
        let stats = await r.statistics
        #expect(stats.reloads == 1 && stats.evictions == 2)
    }

    @Test func `a leased model survives the load that needs its memory, which waits for the release`() async throws {
        let r = residency(budget: 150)
        let held = try await r.lease(FakeLoader("a", bytes: 100))
        let waiter = Task { try await r.lease(FakeLoader("b", bytes: 100)) }
        while await r.snapshot().queued == 0 { await Task.yield() }
        #expect(await r.snapshot().modelIds == ["a"])
        #expect(held.model.residentBytes == 100)
        await held.release()
        let b = try await waiter.value
        #expect(await r.snapshot().modelIds == ["b"])
        await b.release()
    }

    @Test func `concurrent ops never lose a leased model and all complete under a tight budget`() async throws {
        let r = residency(budget: 300)
        let ids = ["a", "b", "c", "d", "e"]
        let violations = LoadLog()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for op in 0..<40 {
                group.addTask {
                    let id = ids[(op * 7) % ids.count]
                    let lease = try await r.lease(FakeLoader(id, bytes: 100 + 10 * (op % 3)))
                    for _ in 0..<3 {
                        await Task.yield()
                        let snapshot = await r.snapshot()
                        let entry = snapshot.models.first { $0.modelId == id }
                        if entry == nil || entry?.loading == true || (entry?.leases ?? 0) < 1 || snapshot.usedBytes > 300 {
                            violations.record(id)
                        }
                    }
                    await lease.release()
                }
            }
            try await group.waitForAll()
        }
        #expect(violations.total == 0)
        let stats = await r.statistics
        #expect(stats.leases == 40 && stats.evictions > 0)
        #expect(await r.snapshot().models.allSatisfy { $0.leases == 0 })
    }

    @Test func `a model larger than its estimate is charged as measured`() async throws {
        let r = residency(budget: 300)
        try await r.lease(FakeLoader("a", bytes: 100)).release()
        try await r.lease(FakeLoader("b", bytes: 100, measured: 250)).release()
        #expect(await r.snapshot().modelIds == ["b"])
        #expect(await r.usedBytes == 250)
    }

    @Test func `warning pressure frees idle models and keeps leased ones`() async throws {
        let r = residency(budget: 1000)
        let held = try await r.lease(FakeLoader("leased", bytes: 100))
        try await r.lease(FakeLoader("idle", bytes: 100)).release()
        await r.handlePressure(.warning)
        #expect(await r.snapshot().modelIds == ["leased"])
        #expect(held.model.trimCount == 0)
        await held.release()
        #expect(await r.snapshot().modelIds == ["leased"])  // keep-alive applies again
    }

    @Test func `critical pressure trims leased models and drops them when their op ends`() async throws {
        let r = residency(budget: 1000)
        let held = try await r.lease(FakeLoader("leased", bytes: 100))
        try await r.lease(FakeLoader("idle", bytes: 100)).release()
        await r.handlePressure(.critical)
        #expect(await r.snapshot().modelIds == ["leased"])
        #expect(held.model.trimCount == 1)
        await held.release()
        #expect(await r.snapshot().modelIds.isEmpty)
    }

    @Test func `idle models unload after the keep-alive on the manual clock`() async throws {
        let r = residency(budget: 1000)
        let subscription = events.subscribe()
        try await r.lease(FakeLoader("a", bytes: 100)).release()
        clock.advance(by: .seconds(299))
        await r.expireIdle()
        #expect(await r.snapshot().modelIds == ["a"])
        clock.advance(by: .seconds(1))
        // The timer task wakes on its own; the event is the sync point (no real sleep).
        let event = await nextEvent(subscription) { $0.unloadedId != nil }
        #expect(event == .unloaded(modelId: "a", bytes: 100, reason: .keepAliveExpired))
        #expect(await r.snapshot().modelIds.isEmpty)
    }

    @Test func `per-request keep-alive: zero unloads after the op, negative keeps past any time`() async throws {
        let r = residency(budget: 1000, keepAlive: .duration(.seconds(10)))
        try await r.lease(FakeLoader("once", bytes: 100), keepAlive: .unloadImmediately).release()
        #expect(await r.snapshot().modelIds.isEmpty)
        try await r.lease(FakeLoader("kept", bytes: 100), keepAlive: KeepAlive(seconds: -1)).release()
        try await r.lease(FakeLoader("default", bytes: 100)).release()
        let overridden = try await r.lease(FakeLoader("override", bytes: 100))
        await overridden.release(keepAlive: .duration(.seconds(1000)))
        clock.advance(by: .seconds(500))
        await r.expireIdle()
        #expect(await r.snapshot().modelIds == ["kept", "override"])
    }

    @Test func `cancelling a lease that waits for memory throws cancelled and leaves the queue`() async throws {
        let r = residency(budget: 100)
        let held = try await r.lease(FakeLoader("a", bytes: 100))
        let waiter = Task { try await r.lease(FakeLoader("b", bytes: 100)) }
        while await r.snapshot().queued == 0 { await Task.yield() }
        waiter.cancel()
        await #expect(throws: RuntimeError.cancelled) { try await waiter.value }
        #expect(await r.snapshot().queued == 0)
        await held.release()
    }

    @Test func `a failed load is reported to every waiter and leaves nothing charged`() async {
        let r = residency(budget: 1000)
        let gate = Gate()
        let failure = RuntimeError.load(modelId: "bad", reason: "corrupt")
        let first = Task { try await r.lease(FakeLoader("bad", bytes: 100, gate: gate, failure: failure)) }
        while await r.snapshot().models.isEmpty { await Task.yield() }
        let second = Task { try await r.lease(FakeLoader("bad", bytes: 100, gate: gate, failure: failure)) }
        while await r.snapshot().models.first?.leases != 2 { await Task.yield() }
        gate.open()
        await #expect(throws: failure) { try await first.value }
        await #expect(throws: failure) { try await second.value }
        #expect(await r.usedBytes == 0)
    }

    @Test func `leasing one id as two model types is an error, not a crash`() async throws {
        struct OtherLoader: ResidentModelLoading {
            var modelId: String { "a" }
            var kind: ModelKind { .embedding }
            func estimate() throws(RuntimeError) -> MemoryEstimate { MemoryEstimate(weightBytes: 1) }
            func load() async throws(RuntimeError) -> OtherModelBox { OtherModelBox() }
        }
        final class OtherModelBox: ResidentModel {
            static var kind: ModelKind { .llm }
            var residentBytes: Int { 1 }
        }
        let r = residency(budget: 1000)
        let lease = try await r.lease(FakeLoader("a", bytes: 100))
        await #expect(throws: RuntimeError.self) { try await r.lease(OtherLoader()) }
        #expect(await r.snapshot().models.first?.leases == 1)
        await lease.release()
    }
}
