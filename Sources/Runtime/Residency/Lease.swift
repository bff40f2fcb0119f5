import EngineSupport
import Synchronization

/// An op's hold on a resident model. While any lease on a model is live the model is never
/// unloaded, whatever the budget, the keep-alive or memory pressure say.
///
/// Release it when the op ends (`release`, or use `Residency.withLease`); a lease dropped without
/// release is released by its deinit, so a forgotten release delays the keep-alive but never
/// pins a model forever.
package final class Lease<Model: ResidentModel>: Sendable {
    package let model: Model
    package let modelId: String
    private let residency: Residency
    private let released = Atomic<Bool>(false)

    init(model: Model, modelId: String, residency: Residency) {
        self.model = model
        self.modelId = modelId
        self.residency = residency
    }

    /// Ends the lease. `keepAlive` overrides the keep-alive the lease was taken with (Ollama's
    /// per-request `keep_alive`: 0 unloads now, negative keeps). Releasing twice does nothing.
    package func release(keepAlive: KeepAlive? = nil) async {
        guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
        await residency.release(modelId: modelId, keepAlive: keepAlive)
    }

    package var isReleased: Bool { released.load(ordering: .acquiring) }

    deinit {
        guard !released.load(ordering: .acquiring) else { return }
        let residency = residency, modelId = modelId
        Task(executorPreference: OwnThreadsExecutor.shared) { await residency.release(modelId: modelId, keepAlive: nil) }
    }
}

/// A lease whose model type is known only at run time (generic tools such as the residency
/// benchmark, which walk models of every kind).
package protocol ModelLease: Sendable {
    var residentModel: any ResidentModel { get }
    func release(keepAlive: KeepAlive?) async
}

extension Lease: ModelLease {
    package var residentModel: any ResidentModel { model }
}

extension Residency {
    /// `lease` for a loader of any kind.
    package nonisolated func lease(any loader: any ResidentModelLoading, keepAlive: KeepAlive? = nil) async throws(RuntimeError) -> any ModelLease {
        try await openLease(loader, keepAlive: keepAlive)
    }

    private nonisolated func openLease<L: ResidentModelLoading>(_ loader: L, keepAlive: KeepAlive?) async throws(RuntimeError) -> any ModelLease {
        try await lease(loader, keepAlive: keepAlive)
    }
}
