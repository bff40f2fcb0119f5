import EngineSupport

/// A deterministic random number generator so randomized tests replay exactly: the engine's one
/// seeded generator (SplitMix64).
package typealias SeededGenerator = SplitMix64
