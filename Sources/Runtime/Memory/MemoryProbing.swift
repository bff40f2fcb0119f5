/// What the machine says about memory right now. Each figure is nil when the system does not
/// report it (no cgroup limit, a kernel without `MemAvailable`).
package struct MemorySnapshot: Sendable, Equatable {
    /// `MemAvailable` from /proc/meminfo: memory the kernel estimates can be handed out without
    /// swapping (free pages plus reclaimable cache).
    package var memAvailable: Int?
    /// The tightest cgroup limit on this process (v2 `memory.max`, v1 `memory.limit_in_bytes`).
    package var cgroupLimit: Int?
    /// That cgroup's limit minus its usage, the smallest over every level that has a limit.
    package var cgroupHeadroom: Int?

    package init(memAvailable: Int? = nil, cgroupLimit: Int? = nil, cgroupHeadroom: Int? = nil) {
        self.memAvailable = memAvailable
        self.cgroupLimit = cgroupLimit
        self.cgroupHeadroom = cgroupHeadroom
    }

    /// Bytes this process could take: `MemAvailable`, or the cgroup headroom when that is lower.
    package var available: Int? {
        switch (memAvailable, cgroupHeadroom) {
        case let (m?, c?): min(m, c)
        case let (m?, nil): m
        case let (nil, c?): c
        case (nil, nil): nil
        }
    }
}

/// Reads the machine's memory figures. Production reads procfs and cgroupfs; tests pass fixed
/// snapshots.
package protocol MemoryProbing: Sendable {
    func snapshot() -> MemorySnapshot
}

/// A probe that always reports the same snapshot (tests, and callers that know their budget).
package struct FixedMemoryProbe: MemoryProbing {
    package var value: MemorySnapshot
    package init(_ value: MemorySnapshot) { self.value = value }
    package func snapshot() -> MemorySnapshot { value }
}
