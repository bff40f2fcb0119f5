import Dispatch
import Platform

/// Admission for one model: at most `maxRunning` requests compute at once (fewer once
/// `limitRunning` says how many sessions the memory budget holds), at most `maxWaiting` more
/// wait their turn (first come, first served), and any beyond that are refused at once (429),
/// so a burst cannot pile up unbounded threads and memory.
package final class ModelQueue: Sendable {
    package let maxRunning: Int
    package let maxWaiting: Int

    private final class Waiter: Sendable {
        let wake = DispatchSemaphore(value: 0)
    }

    private struct State {
        var running = 0
        /// Requests that may run at once: `maxRunning`, or less under the KV budget.
        var limit: Int
        var waiters: [ObjectIdentifier] = []
        var waiterObjects: [ObjectIdentifier: Waiter] = [:]
        /// Waiters handed a slot by a leaving request (the slot moves without `running` dropping).
        var granted: Set<ObjectIdentifier> = []
    }
    private let state: Locked<State>

    package init(maxRunning: Int, maxWaiting: Int) {
        precondition(maxRunning >= 1 && maxWaiting >= 0, "a queue needs a running slot")
        self.maxRunning = maxRunning
        self.maxWaiting = maxWaiting
        state = Locked(State(limit: maxRunning))
    }

    /// (running, waiting) now.
    package var counts: (running: Int, waiting: Int) { state.withLock { ($0.running, $0.waiters.count) } }
    /// Requests that may run at once now.
    package var runningLimit: Int { state.withLock { $0.limit } }

    /// At most `sessions` requests run at once from now on (never more than `maxRunning`, never
    /// fewer than one). Requests already running finish; waiters move up as room opens.
    package func limitRunning(to sessions: Int) {
        let woken: [Waiter] = state.withLock { s in
            s.limit = min(maxRunning, max(1, sessions))
            var woken: [Waiter] = []
            while s.running < s.limit, !s.waiters.isEmpty {
                let key = s.waiters.removeFirst()
                s.granted.insert(key)
                s.running += 1
                if let waiter = s.waiterObjects.removeValue(forKey: key) { woken.append(waiter) }
            }
            return woken
        }
        woken.forEach { $0.wake.signal() }
    }

    /// Takes a slot, waiting in line if needed. Returns false when `isCancelled` turned true
    /// while waiting (the client left). Throws `.queueFull` when the line is full.
    package func enter(model: String, isCancelled: () -> Bool) throws(ServerError) -> Bool {
        let waiter = Waiter()
        let key = ObjectIdentifier(waiter)
        let queued: Int? = state.withLock { s in
            if s.running < s.limit && s.waiters.isEmpty {
                s.running += 1
                return nil
            }
            guard s.waiters.count < maxWaiting else { return s.waiters.count }
            s.waiters.append(key)
            s.waiterObjects[key] = waiter
            return -1
        }
        guard let queued else { return true }
        if queued >= 0 { throw .queueFull(model: model, waiting: queued) }
        while true {
            if waiter.wake.wait(timeout: .now() + .milliseconds(100)) == .success {
                state.withLock { _ = $0.granted.remove(key) }
                return true
            }
            guard isCancelled() else { continue }
            let wasGranted = state.withLock { s in
                if s.granted.remove(key) != nil { return true }
                s.waiters.removeAll { $0 == key }
                s.waiterObjects[key] = nil
                return false
            }
            if wasGranted { leave() }  // the slot arrived as we gave up: pass it on
            return false
        }
    }

    /// Gives the slot back: to the first waiter, else to the pool.
    package func leave() {
        let next: Waiter? = state.withLock { s in
            // The slot moves to the first waiter unless the limit has dropped below the running count.
            guard !s.waiters.isEmpty, s.running <= s.limit else {
                s.running -= 1
                return nil
            }
            let key = s.waiters.removeFirst()
            s.granted.insert(key)
            return s.waiterObjects.removeValue(forKey: key)
        }
        next?.wake.signal()
    }
}
