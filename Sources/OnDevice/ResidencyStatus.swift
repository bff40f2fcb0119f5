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

extension OnDeviceAI {
    /// Loads model `id` (any kind; downloaded first if it is not installed) and keeps it
    /// resident for `keepAliveSeconds` after, as if an op had just used it: an app warms the
    /// model it will need so the first reply does not wait for the load (Ollama's preload).
    /// Nil uses the instance's keep-alive; 0 lets it go at once; negative keeps it until memory
    /// is needed. A text model loads with the context and threads its ops use.
    public func load(_ id: String, keepAliveSeconds: Double? = nil) async throws {
        let runtime = try await runtime()
        let backend = runtime.textGeneration.backend.options
        let text = LoadOptions(contextLength: configuration.contextLength ?? backend.contextLength,
                               threads: configuration.threads ?? backend.threads)
        let lease: any ModelLease
        do {
            lease = try await runtime.leaseAnyKind(modelId: id, textOptions: text, options: LoadOptions(threads: modelThreads))
        } catch .cancelled {
            throw OnDeviceError.cancelled
        } catch {
            throw OnDeviceError.modelUnavailable(model: id, reason: error.description)
        }
        await lease.release(keepAlive: keepAliveSeconds.map(KeepAlive.init(seconds:)))
    }

    /// The models loaded now, and the memory budget they share.
    public func residency() async throws -> ResidencyStatus {
        ResidencyStatus(await try runtime().residency.snapshot())
    }

    /// Unloads model `id` now if nothing holds it, else as soon as the last op holding it ends
    /// (Ollama's `keep_alive: 0`). A model that is not loaded is left as it is.
    public func unload(_ id: String) async throws {
        await try runtime().residency.unload(id)
    }
}
