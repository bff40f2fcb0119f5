import Runtime
import Testing

/// The cache's decisions, without models, threads or time.
@Suite struct ResidencyStateTests {
    typealias Action = ResidencyState.Action
    let minutes5 = KeepAlive.standard

    /// Requests and finishes loading `id`, returning the actions of both steps.
    @discardableResult
    func load(_ s: inout ResidencyState, _ id: String, bytes: Int, request: Int, now: Duration = .zero) -> [Action] {
        let a = s.request(id: request, modelId: id, bytes: bytes, keepAlive: minutes5, wait: true)
        return a + s.loadFinished(modelId: id, measuredBytes: bytes, now: now)
    }

    func unloads(_ actions: [Action]) -> [String] {
        actions.compactMap { if case let .unload(id, _, _) = $0 { id } else { nil } }
    }

    @Test func `loading past the budget evicts idle models least recently used first`() {
        var s = ResidencyState(budget: 300)
        load(&s, "a", bytes: 100, request: 1)
        load(&s, "b", bytes: 100, request: 2)
        load(&s, "c", bytes: 100, request: 3)
        for id in ["a", "b", "c"] { _ = s.release(modelId: id, measuredBytes: 100, keepAlive: nil, now: .zero) }
        // Touch a again: b is now the least recently used.
        _ = s.request(id: 4, modelId: "a", bytes: 100, keepAlive: minutes5, wait: true)
        _ = s.release(modelId: "a", measuredBytes: 100, keepAlive: nil, now: .zero)
        let actions = s.request(id: 5, modelId: "d", bytes: 150, keepAlive: minutes5, wait: true)
        #expect(unloads(actions) == ["b", "c"])
        #expect(actions.contains(.unload(modelId: "b", bytes: 100, reason: .budget(forModel: "d"))))
        #expect(actions.contains(.load(modelId: "d", request: 5)))
        #expect(s.usedBytes <= s.budget)
        #expect(s.lruOrder.map(\.modelId) == ["a", "d"])
    }

    @Test func `a model larger than the whole budget is refused before loading`() {
        var s = ResidencyState(budget: 300)
        let actions = s.request(id: 1, modelId: "huge", bytes: 301, keepAlive: minutes5, wait: true)
        #expect(actions == [.fail(request: 1, .exceedsBudget(modelId: "huge", needed: 301, budget: 300))])
        #expect(s.entries.isEmpty)
    }

    @Test func `leased models are never evicted; a blocked request waits and is admitted on release`() {
        var s = ResidencyState(budget: 250)
        load(&s, "a", bytes: 100, request: 1)  // leased
        load(&s, "b", bytes: 100, request: 2)
        _ = s.release(modelId: "b", measuredBytes: 100, keepAlive: nil, now: .zero)
        // c needs 200: evicting idle b frees only 100 while a is leased, so nothing is evicted yet.
        let blocked = s.request(id: 3, modelId: "c", bytes: 200, keepAlive: minutes5, wait: true)
        #expect(unloads(blocked).isEmpty)
        #expect(s.queue.map(\.id) == [3])
        #expect(s.entries["a"]?.leases == 1)
        let released = s.release(modelId: "a", measuredBytes: 100, keepAlive: nil, now: .zero)
        #expect(Set(unloads(released)) == ["a", "b"])
        #expect(released.contains(.load(modelId: "c", request: 3)))
        #expect(s.queue.isEmpty)
    }

    @Test func `a request that may not wait fails with what the leased models hold`() {
        var s = ResidencyState(budget: 200)
        load(&s, "a", bytes: 150, request: 1)
        let actions = s.request(id: 2, modelId: "b", bytes: 100, keepAlive: minutes5, wait: false)
        #expect(actions == [.fail(request: 2, .budgetBusy(modelId: "b", needed: 100, evictable: 0, budget: 200))])
    }

    @Test func `a second lease on a loading model waits for that load instead of loading twice`() {
        var s = ResidencyState(budget: 500)
        let first = s.request(id: 1, modelId: "a", bytes: 100, keepAlive: minutes5, wait: true)
        let second = s.request(id: 2, modelId: "a", bytes: 100, keepAlive: minutes5, wait: true)
        #expect(first.filter { if case .load = $0 { true } else { false } }.count == 1)
        #expect(!second.contains { if case .load = $0 { true } else { false } })
        let done = s.loadFinished(modelId: "a", measuredBytes: 120, now: .zero)
        #expect(done.contains(.grant(request: 1, modelId: "a")) && done.contains(.grant(request: 2, modelId: "a")))
        #expect(s.entries["a"]?.leases == 2 && s.entries["a"]?.bytes == 120)
    }

    @Test func `a model measured larger than its estimate evicts idle models to stay in budget`() {
        var s = ResidencyState(budget: 300)
        load(&s, "a", bytes: 100, request: 1)
        _ = s.release(modelId: "a", measuredBytes: 100, keepAlive: nil, now: .zero)
        _ = s.request(id: 2, modelId: "b", bytes: 150, keepAlive: minutes5, wait: true)
        let done = s.loadFinished(modelId: "b", measuredBytes: 250, now: .zero)
        #expect(unloads(done) == ["a"])
        #expect(s.usedBytes == 250)
    }

    @Test func `keep-alive: a time expires, zero unloads after use, negative keeps`() {
        var s = ResidencyState(budget: 1000)
        load(&s, "timed", bytes: 100, request: 1)
        load(&s, "now", bytes: 100, request: 2)
        load(&s, "kept", bytes: 100, request: 3)
        let timed = s.release(modelId: "timed", measuredBytes: 100, keepAlive: nil, now: .seconds(10))
        #expect(timed.last == .schedule(.seconds(310)))
        let now = s.release(modelId: "now", measuredBytes: 100, keepAlive: .unloadImmediately, now: .seconds(10))
        #expect(now.contains(.unload(modelId: "now", bytes: 100, reason: .afterUse)))
        _ = s.release(modelId: "kept", measuredBytes: 100, keepAlive: .forever, now: .seconds(10))
        #expect(unloads(s.expire(now: .seconds(309))).isEmpty)
        #expect(unloads(s.expire(now: .seconds(310))) == ["timed"])
        #expect(unloads(s.expire(now: .seconds(1_000_000))).isEmpty)
        #expect(s.lruOrder.map(\.modelId) == ["kept"])
    }

    @Test func `warning pressure drops every idle model and no leased one`() {
        var s = ResidencyState(budget: 1000)
        load(&s, "leased", bytes: 100, request: 1)
        load(&s, "idle", bytes: 100, request: 2)
        load(&s, "forever", bytes: 100, request: 3)
        _ = s.release(modelId: "idle", measuredBytes: 100, keepAlive: nil, now: .zero)
        _ = s.release(modelId: "forever", measuredBytes: 100, keepAlive: .forever, now: .zero)
        let actions = s.pressure(.warning)
        #expect(Set(unloads(actions)) == ["idle", "forever"])
        #expect(!actions.contains(.trim(modelId: "leased")))
        #expect(s.entries["leased"]?.unloadOnRelease == nil)
    }

    @Test func `critical pressure also trims leased models and unloads them when released`() {
        var s = ResidencyState(budget: 1000)
        load(&s, "leased", bytes: 100, request: 1)
        load(&s, "idle", bytes: 100, request: 2)
        _ = s.release(modelId: "idle", measuredBytes: 100, keepAlive: nil, now: .zero)
        let actions = s.pressure(.critical)
        #expect(unloads(actions) == ["idle"])
        #expect(actions.contains(.trim(modelId: "leased")))
        let released = s.release(modelId: "leased", measuredBytes: 100, keepAlive: .forever, now: .zero)
        #expect(released.contains(.unload(modelId: "leased", bytes: 100, reason: .pressure(.critical))))
    }

    @Test func `pressure returning to normal keeps a model that critical pressure marked`() {
        var s = ResidencyState(budget: 1000)
        load(&s, "leased", bytes: 100, request: 1)
        _ = s.pressure(.critical)
        _ = s.pressure(.normal)
        #expect(unloads(s.release(modelId: "leased", measuredBytes: 100, keepAlive: nil, now: .zero)).isEmpty)
    }

    @Test func `queued requests are admitted in arrival order`() {
        var s = ResidencyState(budget: 200)
        load(&s, "a", bytes: 200, request: 1)
        _ = s.request(id: 2, modelId: "b", bytes: 150, keepAlive: minutes5, wait: true)
        _ = s.request(id: 3, modelId: "c", bytes: 50, keepAlive: minutes5, wait: true)
        #expect(s.queue.map(\.id) == [2, 3])
        let released = s.release(modelId: "a", measuredBytes: 200, keepAlive: nil, now: .zero)
        let loads = released.compactMap { if case let .load(id, _) = $0 { id } else { nil } }
        #expect(loads == ["b", "c"])
    }

    @Test func `a cancelled queued request leaves the queue with an error`() {
        var s = ResidencyState(budget: 100)
        load(&s, "a", bytes: 100, request: 1)
        _ = s.request(id: 2, modelId: "b", bytes: 100, keepAlive: minutes5, wait: true)
        #expect(s.cancel(request: 2) == [.fail(request: 2, .cancelled), .schedule(nil)])
        #expect(s.queue.isEmpty)
    }

    @Test func `lowering the budget evicts idle models but not leased ones`() {
        var s = ResidencyState(budget: 400)
        load(&s, "a", bytes: 100, request: 1)
        load(&s, "b", bytes: 100, request: 2)
        load(&s, "c", bytes: 100, request: 3)
        _ = s.release(modelId: "a", measuredBytes: 100, keepAlive: nil, now: .zero)
        _ = s.release(modelId: "b", measuredBytes: 100, keepAlive: nil, now: .zero)
        let actions = s.setBudget(150)
        #expect(unloads(actions) == ["a", "b"])
        #expect(s.entries["c"] != nil)
    }
}
