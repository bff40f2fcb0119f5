import EngineSupport
import Foundation
import ModelStore
import Platform

/// The runtime's first-use downloads: one pull per model however many ops ask for it at once,
/// progress kept for capability answers, and every step published on the event bus. Models land
/// in the store's layout, so a model prefetched earlier and one pulled here look the same.
package final class Downloads: Sendable {
    package let store: ModelStore
    private let events: EventBus<RuntimeEvent>
    private let active = Locked<[String: Active]>([:])

    private struct Active {
        var task: Task<InstalledModel, Error>
        var progress: PullProgress?
    }

    package init(store: ModelStore, events: EventBus<RuntimeEvent>) {
        self.store = store
        self.events = events
    }

    /// The installed model for `id`: found on disk (sizes checked, no hashing), or pulled now.
    package func installed(_ id: String) async throws(RuntimeError) -> InstalledModel {
        do {
            if let model = try await store.resolve(id) { return model }
        } catch {
            throw .store(error)
        }
        return try await pull(id)
    }

    /// Pulls `id` (resuming partial files), joining a pull already running in this process.
    package func pull(_ id: String) async throws(RuntimeError) -> InstalledModel {
        let task: Task<InstalledModel, Error> = active.withLock { running in
            if let existing = running[id] { return existing.task }
            let task = Task { try await self.run(id) }
            running[id] = Active(task: task, progress: nil)
            return task
        }
        do {
            return try await task.value
        } catch let error as RuntimeError {
            throw error
        } catch {
            throw .cancelled
        }
    }

    private func run(_ id: String) async throws -> InstalledModel {
        defer { _ = active.withLock { $0.removeValue(forKey: id) } }
        let total = try? await store.catalog.entry(id: id).knownBytes
        events.publish(.downloadStarted(modelId: id, totalBytes: total))
        let started = ContinuousClock.now
        do {
            let model = try await store.pull(id) { [weak self] progress in self?.record(progress) }
            events.publish(.downloadFinished(modelId: id, seconds: (ContinuousClock.now - started).seconds))
            return model
        } catch {
            events.publish(.downloadFailed(modelId: id, error: .store(error)))
            throw RuntimeError.store(error)
        }
    }

    private func record(_ progress: PullProgress) {
        active.withLock { $0[progress.id]?.progress = progress }
        events.publish(.downloadProgress(progress))
    }

    /// Progress of a pull running in this process; nil when none is.
    package func progress(of id: String) -> PullProgress? { active.withLock { $0[id]?.progress } }

    /// Whether this process is pulling `id` right now.
    package func isDownloading(_ id: String) -> Bool { active.withLock { $0[id] != nil } }
}
