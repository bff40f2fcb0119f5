import Foundation
import Platform

/// Transfer state of one model pull.
package struct PullProgress: Sendable, Equatable, Codable {
    package var id: String
    /// Bytes of the model on disk so far, including bytes resumed from an earlier run.
    package var receivedBytes: Int64
    /// Sum of the known file sizes (nil when a custom file's size is not known yet).
    package var totalBytes: Int64?
    /// Average rate of this run's transfer, bytes per second.
    package var bytesPerSecond: Double
    /// Seconds left at that rate; nil until a rate and a total are known.
    package var etaSeconds: Double?
}

/// What `ModelStore.pullEvents` streams.
package enum PullEvent: Sendable, Equatable {
    case progress(PullProgress)
    /// The model is installed and verified (or was already).
    case installed(InstalledModel)
}

/// Sums per-file byte deltas from the transport threads into throttled progress events.
final class ProgressMeter: Sendable {
    private struct State {
        var received: Int64 = 0
        var resumed: Int64 = 0
        var started: ContinuousClock.Instant?
        var lastEmit: ContinuousClock.Instant?
    }
    private let id: String
    private let total: Int64?
    private let interval: Duration
    private let sink: @Sendable (PullProgress) -> Void
    private let state = Locked(State())

    init(id: String, total: Int64?, interval: Double, sink: @escaping @Sendable (PullProgress) -> Void) {
        self.id = id
        self.total = total
        self.interval = .seconds(interval)
        self.sink = sink
    }

    /// Bytes already on disk before this run; counted as received, not in the rate.
    func resumed(_ bytes: Int64) { state.withLock { $0.received += bytes; $0.resumed += bytes } }

    func add(_ delta: Int64) {
        let now = ContinuousClock.now
        let event: PullProgress? = state.withLock { s in
            s.received += delta
            if delta < 0 { s.resumed = max(0, s.resumed + delta) }
            if s.started == nil { s.started = now }
            if let last = s.lastEmit, now - last < interval { return nil }
            s.lastEmit = now
            return makeEvent(s, now: now)
        }
        if let event { sink(event) }
    }

    /// Always emitted at the end so the last event shows the final count.
    func finish() {
        let event = state.withLock { makeEvent($0, now: .now) }
        sink(event)
    }

    private func makeEvent(_ s: State, now: ContinuousClock.Instant) -> PullProgress {
        let elapsed = s.started.map { (now - $0) / .seconds(1) } ?? 0
        let rate = elapsed > 0 ? Double(max(0, s.received - s.resumed)) / elapsed : 0
        let eta = total.flatMap { total in rate > 0 ? Double(max(0, total - s.received)) / rate : nil }
        return PullProgress(id: id, receivedBytes: s.received, totalBytes: total, bytesPerSecond: rate, etaSeconds: eta)
    }
}
