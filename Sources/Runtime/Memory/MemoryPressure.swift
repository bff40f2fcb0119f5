/// How hard the kernel is struggling to find memory. Ordered: `normal < warning < critical`.
package enum MemoryPressure: Int, Sendable, Equatable, Comparable, Codable, CustomStringConvertible {
    case normal, warning, critical

    package static func < (a: MemoryPressure, b: MemoryPressure) -> Bool { a.rawValue < b.rawValue }

    package var description: String {
        switch self {
        case .normal: "normal"
        case .warning: "warning"
        case .critical: "critical"
        }
    }
}

/// cgroup v2 `memory.events` counters (cumulative since the cgroup was created).
package struct CgroupMemoryEvents: Sendable, Equatable {
    /// Times usage went over `memory.high` and the cgroup was throttled and reclaimed.
    package var high = 0
    /// Times usage hit `memory.max` and direct reclaim ran.
    package var max = 0
    package var oom = 0
    package var oomKill = 0

    package init(high: Int = 0, max: Int = 0, oom: Int = 0, oomKill: Int = 0) {
        self.high = high
        self.max = max
        self.oom = oom
        self.oomKill = oomKill
    }
}

/// One poll of the pressure sources: PSI stall averages (percent of the last 10 s in which some
/// or all non-idle tasks waited for memory) and the cgroup event counters.
package struct PressureReading: Sendable, Equatable {
    package var someAvg10: Double?
    package var fullAvg10: Double?
    package var events: CgroupMemoryEvents?

    package init(someAvg10: Double? = nil, fullAvg10: Double? = nil, events: CgroupMemoryEvents? = nil) {
        self.someAvg10 = someAvg10
        self.fullAvg10 = fullAvg10
        self.events = events
    }
}

/// Reads the pressure sources. Production reads PSI and cgroupfs; tests script readings.
package protocol PressureProbing: Sendable {
    func read() -> PressureReading
}

/// Turns successive readings into a level.
///
/// PSI: `some avg10 ≥ warningSome` is a warning; `full avg10 ≥ criticalFull` (every task stalled)
/// or `some avg10 ≥ criticalSome` is critical. cgroup events count from the previous reading: a new
/// `high` event is a warning, a new `max`, `oom` or `oom_kill` is critical. The first reading only
/// sets the event baseline, since counters accumulate over the cgroup's whole life.
package struct PressureClassifier: Sendable, Equatable {
    package var warningSome: Double = 10
    package var criticalSome: Double = 50
    package var criticalFull: Double = 10
    private var lastEvents: CgroupMemoryEvents?

    package init() {}

    package mutating func classify(_ reading: PressureReading) -> MemoryPressure {
        var level = MemoryPressure.normal
        if let some = reading.someAvg10 {
            if some >= criticalSome { level = .critical } else if some >= warningSome { level = .warning }
        }
        if let full = reading.fullAvg10, full >= criticalFull { level = .critical }
        if let events = reading.events {
            if let last = lastEvents {
                if events.max > last.max || events.oom > last.oom || events.oomKill > last.oomKill {
                    level = .critical
                } else if events.high > last.high {
                    level = Swift.max(level, .warning)
                }
            }
            lastEvents = events
        }
        return level
    }
}
