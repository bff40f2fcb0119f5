import Foundation

/// The memory probe where procfs and cgroups are absent (Apple platforms): the machine's physical
/// memory, reported as available. It is an upper bound, not what the system can hand out
/// without paging, so the budget policy's fraction (half by default) is what keeps the runtime
/// clear of the rest of the system.
package struct PhysicalMemoryProbe: MemoryProbing {
    package init() {}

    package func snapshot() -> MemorySnapshot {
        let physical = ProcessInfo.processInfo.physicalMemory
        return MemorySnapshot(memAvailable: physical > 0 ? Int(clamping: physical) : nil)
    }
}
