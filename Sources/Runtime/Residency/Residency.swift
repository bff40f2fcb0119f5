import EngineSupport
import Foundation

/// One least-recently-used cache for every loaded model of every kind, under a resident-bytes
/// budget taken from the machine.
///
/// Ops lease the model they run on: a leased model is never unloaded, so eviction never cancels
/// an op; an evicted model is simply loaded again by the next lease (a cache miss, never an error).
/// Decisions live in `ResidencyState`; this actor performs them (loads run outside it, in their
/// own tasks) and reports them on the event bus.
package actor Residency {
    private var state: ResidencyState
    private var models: [String: any ResidentModel] = [:]
    private var waiting: [Int: CheckedContinuation<any ResidentModel, Error>] = [:]
    private var loaders: [Int: any ResidentModelLoading] = [:]
    private var estimates: [Int: MemoryEstimate] = [:]
    private var nextRequest = 0
    private var timer: Task<Void, Never>?
    private var timerDeadline: Duration?
    private var loadedBefore: Set<String> = []
    package private(set) var policy: MemoryBudgetPolicy
    package private(set) var defaultKeepAlive: KeepAlive
    package private(set) var statistics = ResidencyStatistics()
    package nonisolated let clock: any RuntimeClock
    package nonisolated let events: EventBus<RuntimeEvent>
    private nonisolated let memoryProbe: any MemoryProbing

    package init(policy: MemoryBudgetPolicy = MemoryBudgetPolicy(), keepAlive: KeepAlive = .standard,
                 memoryProbe: any MemoryProbing = PlatformProbes.memory(), clock: any RuntimeClock = ContinuousRuntimeClock(),
                 events: EventBus<RuntimeEvent> = EventBus()) {
        self.policy = policy
        self.defaultKeepAlive = keepAlive
        self.memoryProbe = memoryProbe
        self.clock = clock
        self.events = events
        self.state = ResidencyState(budget: policy.budget(snapshot: memoryProbe.snapshot()))
        _ = ProcessMemory.pinnedHeapThreshold
    }

    // MARK: Leases

    /// Leases the model `loader` describes: resident already (a hit), or loaded now, evicting
    /// idle models least recently used first when the budget requires it. A model larger than
    /// the whole budget is refused before loading. When leased models hold the memory, waits for
    /// them to be released (or, with `waitForMemory` false, throws `.budgetBusy`).
    ///
    /// - Parameter keepAlive: how long the model stays after this lease ends; nil uses the
    ///   configured default.
    package nonisolated func lease<L: ResidentModelLoading>(_ loader: L, keepAlive: KeepAlive? = nil,
                                                           waitForMemory: Bool = true) async throws(RuntimeError) -> Lease<L.Model> {
        let estimate = try loader.estimate()
        let model = try await acquire(loader, estimate: estimate, keepAlive: keepAlive, wait: waitForMemory)
        guard let typed = model as? L.Model else {
            await release(modelId: loader.modelId, keepAlive: nil)
            throw .modelTypeMismatch(modelId: loader.modelId, expected: "\(L.Model.self)", found: "\(type(of: model))")
        }
        return Lease(model: typed, modelId: loader.modelId, residency: self)
    }

    /// Runs `body` with the model leased, and releases it however `body` ends.
    nonisolated(nonsending) package func withLease<L: ResidentModelLoading, T>(
        _ loader: L, keepAlive: KeepAlive? = nil, _ body: (L.Model) async throws -> T
    ) async throws -> T {
        let lease = try await lease(loader, keepAlive: keepAlive)
        do {
            let result = try await body(lease.model)
            await lease.release()
            return result
        } catch {
            await lease.release()
            throw error
        }
    }

    private func acquire(_ loader: any ResidentModelLoading, estimate: MemoryEstimate, keepAlive: KeepAlive?,
                         wait: Bool) async throws(RuntimeError) -> any ResidentModel {
        let id = nextRequest
        nextRequest += 1
        loaders[id] = loader
        estimates[id] = estimate
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<any ResidentModel, Error>) in
                    waiting[id] = continuation
                    perform(state.request(id: id, modelId: loader.modelId, bytes: estimate.totalBytes,
                                          keepAlive: keepAlive ?? defaultKeepAlive, wait: wait))
                }
            } onCancel: {
                Task { await self.cancel(request: id) }
            }
        } catch let error as RuntimeError {
            throw error
        } catch {
            throw .cancelled
        }
    }

    private func cancel(request id: Int) { perform(state.cancel(request: id)) }

    /// Ends one lease on `modelId` (called by `Lease.release`).
    func release(modelId: String, keepAlive: KeepAlive?) {
        let measured = models[modelId]?.residentBytes ?? 0
        perform(state.release(modelId: modelId, measuredBytes: measured, keepAlive: keepAlive, now: clock.now))
    }

    // MARK: Memory and time

    /// Reacts to kernel memory pressure: warning unloads every idle model; critical also trims
    /// the models in use and unloads each when its last lease ends.
    package func handlePressure(_ level: MemoryPressure) {
        if level != .normal { events.publish(.memoryPressure(level)) }
        perform(state.pressure(level))
    }

    /// Unloads every idle model whose keep-alive has run out (the timer calls this too).
    package func expireIdle() { perform(state.expire(now: clock.now)) }

    /// Unloads `modelId` now if idle, or as soon as its last lease ends.
    package func unload(_ modelId: String) { perform(state.unload(modelId: modelId)) }

    /// Unloads every model (each leased one when its lease ends).
    package func unloadAll() {
        for entry in state.lruOrder { perform(state.unload(modelId: entry.modelId)) }
    }

    /// Re-reads the machine's memory and recomputes the budget (counting what the runtime holds
    /// as its own); a lower budget evicts idle models.
    package func refreshBudget() {
        perform(state.setBudget(policy.budget(snapshot: memoryProbe.snapshot(), residentBytes: state.usedBytes)))
    }

    /// Applies a new budget policy and default keep-alive (a configuration change).
    package func configure(policy: MemoryBudgetPolicy, keepAlive: KeepAlive) {
        self.policy = policy
        self.defaultKeepAlive = keepAlive
        refreshBudget()
    }

    package var budget: Int { state.budget }
    package var usedBytes: Int { state.usedBytes }

    /// The models loaded now (benchmarks inspect their sessions).
    package var residentModels: [any ResidentModel] { Array(models.values) }

    /// Model `modelId` when it is loaded, without leasing it (for gauges).
    package func resident(_ modelId: String) -> (any ResidentModel)? { models[modelId] }

    /// What is resident, least recently used first.
    package func snapshot() -> ResidencySnapshot {
        let now = clock.now
        return ResidencySnapshot(budget: state.budget, usedBytes: state.usedBytes, queued: state.queue.count,
                                 models: state.lruOrder.map {
                                     ResidencySnapshot.Model(modelId: $0.modelId, loading: $0.phase == .loading, bytes: $0.bytes,
                                                             leases: $0.leases, idleSecondsLeft: $0.expiry.map { ($0 - now).seconds })
                                 })
    }

    // MARK: Effects

    private func perform(_ actions: [ResidencyState.Action]) {
        for action in actions {
            switch action {
            case let .load(modelId, request):
                startLoad(modelId: modelId, request: request)
            case let .grant(request, modelId):
                // The state machine grants only resident models; a missing one would be a bug,
                // reported to the waiter rather than leaving it suspended.
                guard let model = models[modelId] else {
                    finish(request, with: .failure(.load(modelId: modelId, reason: "granted but not resident")))
                    continue
                }
                statistics.leases += 1
                finish(request, with: .success(model))
            case let .fail(request, error):
                finish(request, with: .failure(error))
            case let .unload(modelId, bytes, reason):
                models[modelId] = nil
                ProcessMemory.returnFreedHeap()
                if reason.isEviction {
                    statistics.evictions += 1
                    events.publish(.evicted(modelId: modelId, bytes: bytes, reason: reason))
                } else {
                    statistics.unloads += 1
                    events.publish(.unloaded(modelId: modelId, bytes: bytes, reason: reason))
                }
            case let .trim(modelId):
                models[modelId]?.trim()
            case let .schedule(deadline):
                arm(deadline)
            }
        }
    }

    private func finish(_ request: Int, with result: Result<any ResidentModel, RuntimeError>) {
        loaders[request] = nil
        estimates[request] = nil
        waiting.removeValue(forKey: request)?.resume(with: result.mapError { $0 as Error })
    }

    private func startLoad(modelId: String, request: Int) {
        guard let loader = loaders[request] else { return }
        let estimate = estimates[request] ?? MemoryEstimate(weightBytes: 0)
        statistics.loads += 1
        if loadedBefore.contains(modelId) { statistics.reloads += 1 }
        events.publish(.loadStarted(modelId: modelId, estimate: estimate))
        // On threads of its own: a load reads and repacks weights for seconds, which on the
        // cooperative pool would hold a core's thread from every other task.
        Task.detached(executorPreference: OwnThreadsExecutor.shared) { [weak self] in
            let started = ContinuousClock.now
            let result: Result<any ResidentModel, RuntimeError>
            do throws(RuntimeError) { result = .success(try await loader.load()) } catch { result = .failure(error) }
            await self?.loadCompleted(modelId: modelId, result: result, seconds: (ContinuousClock.now - started).seconds)
        }
    }

    private func loadCompleted(modelId: String, result: Result<any ResidentModel, RuntimeError>, seconds: Double) {
        switch result {
        case .success(let model):
            models[modelId] = model
            loadedBefore.insert(modelId)
            let measured = model.residentBytes
            events.publish(.loadFinished(modelId: modelId, residentBytes: measured, seconds: seconds))
            perform(state.loadFinished(modelId: modelId, measuredBytes: measured, now: clock.now))
        case .failure(let error):
            events.publish(.loadFailed(modelId: modelId, error: error))
            perform(state.loadFailed(modelId: modelId, error: error))
        }
    }

    private func arm(_ deadline: Duration?) {
        guard deadline != timerDeadline else { return }
        timer?.cancel()
        timerDeadline = deadline
        guard let deadline else { timer = nil; return }
        let clock = clock
        timer = Task { [weak self] in
            do { try await clock.sleep(until: deadline) } catch { return }
            await self?.timerFired(deadline)
        }
    }

    private func timerFired(_ deadline: Duration) {
        if timerDeadline == deadline { timerDeadline = nil }
        expireIdle()
    }
}

/// Counters that make the cache measurable.
package struct ResidencyStatistics: Sendable, Equatable {
    /// Leases granted (hits and misses).
    package var leases = 0
    /// Loads started (cache misses).
    package var loads = 0
    /// Loads of a model that had been loaded and unloaded before.
    package var reloads = 0
    package var evictions = 0
    /// Keep-alive and requested unloads.
    package var unloads = 0
}

/// A picture of the cache for status output and tests.
package struct ResidencySnapshot: Sendable, Equatable {
    package struct Model: Sendable, Equatable {
        package var modelId: String
        package var loading: Bool
        package var bytes: Int
        package var leases: Int
        /// Seconds until its keep-alive unloads it; nil while leased or kept forever.
        package var idleSecondsLeft: Double?
    }
    package var budget: Int
    package var usedBytes: Int
    package var queued: Int
    /// Least recently used first.
    package var models: [Model]

    package var modelIds: [String] { models.map(\.modelId) }
}
