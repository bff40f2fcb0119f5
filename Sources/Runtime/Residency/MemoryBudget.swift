/// How the resident-bytes budget follows from the machine: a fraction of what the process could
/// take, or an explicit figure. A value type so it can be part of the configuration's identity.
package struct MemoryBudgetPolicy: Sendable, Equatable, Codable {
    /// Share of the available memory the runtime may keep resident (0 < fraction ≤ 1).
    package var fraction: Double
    /// When set, the budget in bytes regardless of the machine.
    package var overrideBytes: Int?

    package static let defaultFraction = 0.5
    /// The budget when the machine reports nothing at all (no procfs): small enough to be safe.
    package static let fallbackBytes = 1 << 30

    package init(fraction: Double = MemoryBudgetPolicy.defaultFraction, overrideBytes: Int? = nil) {
        self.fraction = fraction.isFinite ? min(1, max(0.01, fraction)) : MemoryBudgetPolicy.defaultFraction
        self.overrideBytes = overrideBytes.map { max(0, $0) }
    }

    /// The budget for a snapshot taken while the runtime already holds `residentBytes`: those bytes
    /// are no longer "available" but are the runtime's to reuse, so they count towards the base.
    package func budget(snapshot: MemorySnapshot, residentBytes: Int = 0) -> Int {
        if let overrideBytes { return overrideBytes }
        guard let available = snapshot.available else { return Self.fallbackBytes }
        return Int(Double(available + residentBytes) * fraction)
    }
}
