import Platform

/// The time source of keep-alive timers and pressure polling. Injected so tests drive time by hand
/// (`ManualClock`) instead of sleeping.
package protocol RuntimeClock: Sendable {
    /// Time since the clock's origin.
    var now: Duration { get }
    /// Suspends until `now >= deadline`. Throws `CancellationError` when the task is cancelled.
    func sleep(until deadline: Duration) async throws
}

/// The production clock: monotonic (`ContinuousClock`, which keeps counting while the machine
/// sleeps, so a keep-alive measured in wall time expires on wake).
package struct ContinuousRuntimeClock: RuntimeClock {
    private let origin: ContinuousClock.Instant

    package init() { origin = .now }

    package var now: Duration { ContinuousClock.now - origin }

    package func sleep(until deadline: Duration) async throws {
        try await ContinuousClock().sleep(until: origin + deadline, tolerance: .milliseconds(50))
    }
}

/// A clock that moves only when told (the runtime's embedded clock, like an embedded event loop):
/// sleepers wake when `advance` passes their deadline. Deterministic tests and simulations.
package final class ManualClock: RuntimeClock {
    private struct Sleeper {
        var deadline: Duration
        var continuation: CheckedContinuation<Void, Error>
    }
    private struct State {
        var now: Duration = .zero
        var nextId = 0
        var sleepers: [Int: Sleeper] = [:]
        var cancelled: Set<Int> = []
    }
    private let state = Locked(State())

    package init() {}

    package var now: Duration { state.withLock { $0.now } }

    /// Tasks currently sleeping on this clock (lets a test wait until a timer is armed).
    package var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// The earliest deadline anyone sleeps until.
    package var nextDeadline: Duration? { state.withLock { $0.sleepers.values.map(\.deadline).min() } }

    package func sleep(until deadline: Duration) async throws {
        let id = state.withLock { s in
            defer { s.nextId += 1 }
            return s.nextId
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
                let outcome: Result<Void, Error>? = state.withLock { s in
                    if s.cancelled.remove(id) != nil { return .failure(CancellationError()) }
                    if deadline <= s.now { return .success(()) }
                    s.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let sleeper = state.withLock { s in
                let found = s.sleepers.removeValue(forKey: id)
                if found == nil { s.cancelled.insert(id) }
                return found
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward and wakes every sleeper whose deadline has come, earliest first.
    package func advance(by duration: Duration) {
        let due: [Sleeper] = state.withLock { s in
            s.now += duration
            let now = s.now
            let ready = s.sleepers.filter { $0.value.deadline <= now }
            for key in ready.keys { s.sleepers.removeValue(forKey: key) }
            return ready.values.sorted { $0.deadline < $1.deadline }
        }
        for sleeper in due { sleeper.continuation.resume() }
    }
}
