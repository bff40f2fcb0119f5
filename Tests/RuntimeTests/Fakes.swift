import Foundation
import ModelStore
import Runtime
import Platform
import Synchronization

/// A model that only has a size: what the residency cache needs to decide.
final class FakeModel: ResidentModel {
    static var kind: ModelKind { .llm }
    let modelId: String
    private let bytes: Locked<Int>
    private let trims = Atomic<Int>(0)

    init(modelId: String, bytes: Int) {
        self.modelId = modelId
        self.bytes = Locked(bytes)
    }

    var residentBytes: Int { bytes.withLock { $0 } }
    func grow(to value: Int) { bytes.withLock { $0 = value } }
    func trim() { trims.add(1, ordering: .relaxed) }
    var trimCount: Int { trims.load(ordering: .relaxed) }
}

/// A door a fake load waits at until the test opens it.
final class Gate: Sendable {
    private let state = Locked<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { s in
                if s.open { return true }
                s.waiters.append(c)
                return false
            }
            if resumeNow { c.resume() }
        }
    }

    var waiting: Int { state.withLock { $0.waiters.count } }

    func open() {
        let waiters = state.withLock { s in
            s.open = true
            defer { s.waiters.removeAll() }
            return s.waiters
        }
        for w in waiters { w.resume() }
    }
}

/// Counts loads per model id.
final class LoadLog: Sendable {
    private let counts = Locked<[String: Int]>([:])
    func record(_ id: String) { counts.withLock { $0[id, default: 0] += 1 } }
    func count(_ id: String) -> Int { counts.withLock { $0[id] ?? 0 } }
    var total: Int { counts.withLock { $0.values.reduce(0, +) } }
}

struct FakeLoader: ResidentModelLoading {
    var modelId: String
    var kind: ModelKind { .llm }
    var estimateBytes: Int
    /// What the loaded model measures (defaults to the estimate).
    var measuredBytes: Int?
    var gate: Gate?
    var log: LoadLog?
    var failure: RuntimeError?

    init(_ modelId: String, bytes: Int, measured: Int? = nil, gate: Gate? = nil, log: LoadLog? = nil, failure: RuntimeError? = nil) {
        self.modelId = modelId
        self.estimateBytes = bytes
        self.measuredBytes = measured
        self.gate = gate
        self.log = log
        self.failure = failure
    }

    func estimate() throws(RuntimeError) -> MemoryEstimate { MemoryEstimate(weightBytes: estimateBytes) }

    func load() async throws(RuntimeError) -> FakeModel {
        await gate?.wait()
        log?.record(modelId)
        if let failure { throw failure }
        return FakeModel(modelId: modelId, bytes: measuredBytes ?? estimateBytes)
    }
}

/// Pressure readings served in order (the last one repeats).
final class ScriptedPressure: PressureProbing {
    private let readings: Locked<[PressureReading]>
    init(_ readings: [PressureReading]) { self.readings = Locked(readings) }
    func set(_ reading: PressureReading) { readings.withLock { $0 = [reading] } }
    func read() -> PressureReading {
        readings.withLock { r in r.count > 1 ? r.removeFirst() : (r.first ?? PressureReading()) }
    }
}

/// Waits for the first event matching `predicate`, failing after `seconds` of real time (a guard
/// against a hang, not a timing assertion).
func nextEvent(_ subscription: EventSubscription<RuntimeEvent>, within seconds: Double = 10,
               where predicate: @escaping @Sendable (RuntimeEvent) -> Bool) async -> RuntimeEvent? {
    await withTaskGroup(of: RuntimeEvent?.self) { group in
        group.addTask {
            for await event in subscription where predicate(event) { return event }
            return nil
        }
        group.addTask {
            try? await Task.sleep(for: .seconds(seconds))
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}

extension RuntimeEvent {
    /// The model id of a load, unload or eviction event.
    var unloadedId: String? {
        switch self {
        case let .evicted(id, _, _), let .unloaded(id, _, _): id
        default: nil
        }
    }
}
