import Runtime

/// What the instance holds in memory now: the models loaded (or loading) under the memory
/// budget, as Ollama's `/api/ps` shows them.
public struct ResidencyStatus: Sendable, Equatable {
    /// One loaded model.
    public struct Model: Sendable, Equatable {
        public var id: String
        /// Still loading: not serving yet.
        public var isLoading: Bool
        /// Bytes the budget charges for it (weights, caches, scratch).
        public var bytes: Int
        /// Ops holding it now; a held model is never unloaded.
        public var leases: Int
        /// Seconds until its keep-alive unloads it; nil while held or kept until memory is needed.
        public var idleSecondsLeft: Double?
    }

    public var budgetBytes: Int
    public var usedBytes: Int
    /// Loads waiting for room.
    public var waiting: Int
    /// Least recently used first.
    public var models: [Model]

    init(_ snapshot: ResidencySnapshot) {
        budgetBytes = snapshot.budget
        usedBytes = snapshot.usedBytes
        waiting = snapshot.queued
        models = snapshot.models.map {
            Model(id: $0.modelId, isLoading: $0.loading, bytes: $0.bytes, leases: $0.leases, idleSecondsLeft: $0.idleSecondsLeft)
        }
    }
}
