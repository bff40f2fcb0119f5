/// The residency cache's decisions, as a value: every input (a lease request, a finished load, a
/// release, a timer, pressure) is a mutating call that returns the actions to perform. The actor
/// performs them afterwards (load, drop references, wake waiters, rearm the timer), so every
/// policy choice is testable without models, threads or time.
///
/// Invariants: leased and loading models are never unloaded; `usedBytes ≤ budget` after every
/// admission (a measured size above its estimate is corrected by evicting idle models); requests
/// that must wait for leased memory are admitted in arrival order.
package struct ResidencyState: Sendable {
    package enum Phase: Sendable, Equatable { case loading, resident }

    package struct Entry: Sendable, Equatable {
        package var modelId: String
        package var phase: Phase
        /// Charged against the budget: the estimate while loading, the measured size after.
        package var bytes: Int
        package var leases: Int
        /// Larger is more recent (a counter, so the order is exact even within one clock tick).
        package var lastUsed: UInt64
        /// Applies when the last lease ends.
        package var keepAlive: KeepAlive
        /// Set while idle with a finite keep-alive.
        package var expiry: Duration?
        /// Set when the model must go as soon as its last lease ends, and why.
        package var unloadOnRelease: UnloadReason?
        /// Requests waiting for this model's load to finish (they already count in `leases`).
        package var waiters: [Int]

        package var isIdle: Bool { phase == .resident && leases == 0 }
    }

    /// A request waiting for leased memory to be released.
    package struct Pending: Sendable, Equatable {
        package var id: Int
        package var modelId: String
        package var bytes: Int
        package var keepAlive: KeepAlive
    }

    package enum Action: Sendable, Equatable {
        /// Start loading `modelId` with the loader that came with `request`.
        case load(modelId: String, request: Int)
        /// Hand `request` a lease on the resident `modelId`.
        case grant(request: Int, modelId: String)
        case fail(request: Int, RuntimeError)
        /// Drop the model's reference (and with it its memory).
        case unload(modelId: String, bytes: Int, reason: UnloadReason)
        /// Ask a leased model to free what its running ops do not need.
        case trim(modelId: String)
        /// Arm the keep-alive timer for this deadline (nil: nothing to expire).
        case schedule(Duration?)
    }

    package private(set) var entries: [String: Entry] = [:]
    package private(set) var queue: [Pending] = []
    package private(set) var budget: Int
    private var stamp: UInt64 = 0

    package init(budget: Int) { self.budget = max(0, budget) }

    package var usedBytes: Int { entries.values.reduce(0) { $0 + $1.bytes } }

    /// Resident and loading models, least recently used first.
    package var lruOrder: [Entry] { entries.values.sorted { $0.lastUsed < $1.lastUsed } }

    // MARK: Inputs

    /// A lease request for `modelId`, which would take `bytes` if it has to be loaded. With
    /// `wait` false a request blocked by leased models fails instead of queueing.
    package mutating func request(id: Int, modelId: String, bytes: Int, keepAlive: KeepAlive, wait: Bool) -> [Action] {
        if entries[modelId] != nil { return attach(id: id, modelId: modelId, keepAlive: keepAlive) + [schedule()] }
        guard bytes <= budget else {
            return [.fail(request: id, .exceedsBudget(modelId: modelId, needed: bytes, budget: budget))]
        }
        let pending = Pending(id: id, modelId: modelId, bytes: bytes, keepAlive: keepAlive)
        if !wait {
            if queue.isEmpty, let actions = admit(pending) { return actions + [schedule()] }
            return [.fail(request: id, .budgetBusy(modelId: modelId, needed: bytes, evictable: evictableBytes, budget: budget))]
        }
        queue.append(pending)
        return drain() + [schedule()]
    }

    package mutating func loadFinished(modelId: String, measuredBytes: Int, now: Duration) -> [Action] {
        guard var entry = entries[modelId], entry.phase == .loading else { return [] }
        entry.phase = .resident
        entry.bytes = measuredBytes
        var actions: [Action] = entry.waiters.map { .grant(request: $0, modelId: modelId) }
        entry.waiters = []
        if entry.leases == 0 { actions += becameIdle(&entry, keepAlive: nil, now: now) }
        if actions.contains(where: { if case .unload(modelId, _, _) = $0 { true } else { false } }) {
            entries[modelId] = nil
        } else {
            entries[modelId] = entry
        }
        return actions + enforceBudget(reason: .budget(forModel: modelId)) + drain() + [schedule()]
    }

    package mutating func loadFailed(modelId: String, error: RuntimeError) -> [Action] {
        guard let entry = entries[modelId], entry.phase == .loading else { return [] }
        entries[modelId] = nil
        return entry.waiters.map { .fail(request: $0, error) } + drain() + [schedule()]
    }

    /// The end of one lease. `measuredBytes` is the model's size now (sessions may have grown it);
    /// `keepAlive` overrides the one the lease was requested with.
    package mutating func release(modelId: String, measuredBytes: Int, keepAlive: KeepAlive?, now: Duration) -> [Action] {
        guard var entry = entries[modelId], entry.leases > 0 else { return [] }
        entry.leases -= 1
        entry.bytes = measuredBytes
        entry.lastUsed = nextStamp()
        var actions: [Action] = []
        if entry.leases == 0 && entry.phase == .resident {
            actions = becameIdle(&entry, keepAlive: keepAlive, now: now)
        }
        entries[modelId] = actions.isEmpty ? entry : nil
        return actions + enforceBudget(reason: .budget(forModel: modelId)) + drain() + [schedule()]
    }

    /// Unloads every idle model whose keep-alive has run out by `now`.
    package mutating func expire(now: Duration) -> [Action] {
        var actions: [Action] = []
        for entry in lruOrder where entry.isIdle {
            guard let expiry = entry.expiry, expiry <= now else { continue }
            entries[entry.modelId] = nil
            actions.append(.unload(modelId: entry.modelId, bytes: entry.bytes, reason: .keepAliveExpired))
        }
        return actions + drain() + [schedule()]
    }

    /// Warning drops every idle model. Critical also trims the models in use and unloads each one
    /// as soon as its last lease ends. Normal cancels those pending pressure unloads.
    package mutating func pressure(_ level: MemoryPressure) -> [Action] {
        guard level != .normal else {
            for (id, entry) in entries where entry.unloadOnRelease == .pressure(.critical) {
                entries[id]?.unloadOnRelease = nil
            }
            return []
        }
        var actions: [Action] = []
        for entry in lruOrder {
            if entry.isIdle {
                entries[entry.modelId] = nil
                actions.append(.unload(modelId: entry.modelId, bytes: entry.bytes, reason: .pressure(level)))
            } else if level == .critical {
                if entry.phase == .resident { actions.append(.trim(modelId: entry.modelId)) }
                if entries[entry.modelId]?.unloadOnRelease == nil {
                    entries[entry.modelId]?.unloadOnRelease = .pressure(.critical)
                }
            }
        }
        return actions + drain() + [schedule()]
    }

    /// Unloads `modelId` now if idle, or when its last lease ends.
    package mutating func unload(modelId: String) -> [Action] {
        guard let entry = entries[modelId] else { return [] }
        if entry.isIdle {
            entries[modelId] = nil
            return [.unload(modelId: modelId, bytes: entry.bytes, reason: .requested)] + drain() + [schedule()]
        }
        entries[modelId]?.unloadOnRelease = .requested
        return []
    }

    /// A new budget; a lower one evicts idle models, least recently used first.
    package mutating func setBudget(_ bytes: Int) -> [Action] {
        budget = max(0, bytes)
        return enforceBudget(reason: .budgetReduced) + drain() + [schedule()]
    }

    /// Withdraws a request that is queued or waiting for a load.
    package mutating func cancel(request id: Int) -> [Action] {
        if let index = queue.firstIndex(where: { $0.id == id }) {
            queue.remove(at: index)
            return [.fail(request: id, .cancelled)] + drain() + [schedule()]
        }
        for (modelId, entry) in entries where entry.waiters.contains(id) {
            entries[modelId]?.waiters.removeAll { $0 == id }
            entries[modelId]?.leases -= 1
            return [.fail(request: id, .cancelled)]
        }
        return []
    }

    // MARK: Decisions

    /// A new lease on a model that is loading or resident.
    private mutating func attach(id: Int, modelId: String, keepAlive: KeepAlive) -> [Action] {
        guard var entry = entries[modelId] else { return [] }
        entry.leases += 1
        entry.lastUsed = nextStamp()
        entry.keepAlive = keepAlive
        entry.expiry = nil
        defer { entries[modelId] = entry }
        if entry.phase == .loading {
            entry.waiters.append(id)
            return []
        }
        return [.grant(request: id, modelId: modelId)]
    }

    /// Loads `pending` if it fits after evicting idle models (least recently used first), or
    /// returns nil, evicting nothing, when leased and loading models hold too much.
    private mutating func admit(_ pending: Pending) -> [Action]? {
        let overflow = usedBytes + pending.bytes - budget
        var victims: [Entry] = []
        if overflow > 0 {
            var freed = 0
            for entry in lruOrder where entry.isIdle && freed < overflow {
                victims.append(entry)
                freed += entry.bytes
            }
            guard freed >= overflow else { return nil }
        }
        var actions: [Action] = victims.map {
            entries[$0.modelId] = nil
            return .unload(modelId: $0.modelId, bytes: $0.bytes, reason: .budget(forModel: pending.modelId))
        }
        entries[pending.modelId] = Entry(modelId: pending.modelId, phase: .loading, bytes: pending.bytes, leases: 1,
                                         lastUsed: nextStamp(), keepAlive: pending.keepAlive, expiry: nil,
                                         unloadOnRelease: nil, waiters: [pending.id])
        actions.append(.load(modelId: pending.modelId, request: pending.id))
        return actions
    }

    /// Admits queued requests in arrival order, stopping at the first that still does not fit.
    private mutating func drain() -> [Action] {
        var actions: [Action] = []
        while let head = queue.first {
            if entries[head.modelId] != nil {
                queue.removeFirst()
                actions += attach(id: head.id, modelId: head.modelId, keepAlive: head.keepAlive)
                continue
            }
            if head.bytes > budget {
                queue.removeFirst()
                actions.append(.fail(request: head.id, .exceedsBudget(modelId: head.modelId, needed: head.bytes, budget: budget)))
                continue
            }
            guard let admitted = admit(head) else { break }
            queue.removeFirst()
            actions += admitted
        }
        return actions
    }

    /// Evicts idle models, least recently used first, until the used bytes fit the budget (a model
    /// measured larger than its estimate, a session added under a lease, or a lower budget).
    private mutating func enforceBudget(reason: UnloadReason) -> [Action] {
        var actions: [Action] = []
        for entry in lruOrder where entry.isIdle && usedBytes > budget {
            entries[entry.modelId] = nil
            actions.append(.unload(modelId: entry.modelId, bytes: entry.bytes, reason: reason))
        }
        return actions
    }

    /// The last lease ended: unload now (keep-alive 0, or marked), or start the keep-alive.
    /// Returns the unload action when the entry must go; the caller removes it.
    private func becameIdle(_ entry: inout Entry, keepAlive: KeepAlive?, now: Duration) -> [Action] {
        if let reason = entry.unloadOnRelease {
            return [.unload(modelId: entry.modelId, bytes: entry.bytes, reason: reason)]
        }
        switch keepAlive ?? entry.keepAlive {
        case .unloadImmediately:
            return [.unload(modelId: entry.modelId, bytes: entry.bytes, reason: .afterUse)]
        case .duration(let duration):
            entry.expiry = now + duration
        case .forever:
            entry.expiry = nil
        }
        return []
    }

    /// Bytes that evicting every idle model would free.
    package var evictableBytes: Int { entries.values.filter(\.isIdle).reduce(0) { $0 + $1.bytes } }

    private func schedule() -> Action { .schedule(entries.values.compactMap { $0.isIdle ? $0.expiry : nil }.min()) }

    private mutating func nextStamp() -> UInt64 {
        stamp += 1
        return stamp
    }
}
