import Foundation
import Platform
import TextGeneration

/// The stable text-generation feature: one object for the runtime's whole life, whatever model
/// runs behind it. Configuration swaps the backend (model, context, threads) underneath; holders
/// of this object never need a new one.
///
/// Each swap advances a generation. Work that captured an older generation (a warm-up that was
/// still loading) drops its result instead of publishing it as current.
package final class TextGenerationFeature: Sendable {
    private struct State {
        var backend: TextGenerationBackend
        var generation: UInt64 = 0
        var status: TextGenerationStatus = .idle
    }
    private let state: Locked<State>
    private let residency: Residency
    private let downloads: Downloads
    private let events: EventBus<RuntimeEvent>
    private let engine = LanguageModelEngine()

    package init(backend: TextGenerationBackend, residency: Residency, downloads: Downloads, events: EventBus<RuntimeEvent>) {
        self.state = Locked(State(backend: backend))
        self.residency = residency
        self.downloads = downloads
        self.events = events
    }

    package var backend: TextGenerationBackend { state.withLock { $0.backend } }
    package var generation: UInt64 { state.withLock { $0.generation } }
    /// What the last completed warm-up or op of the current backend found.
    package var status: TextGenerationStatus { state.withLock { $0.status } }

    /// Installs a new backend (called by the runtime's `apply` only). Returns false when it equals
    /// the current one.
    @discardableResult
    func replaceBackend(_ backend: TextGenerationBackend) -> Bool {
        state.withLock { s in
            guard s.backend != backend else { return false }
            s.backend = backend
            s.generation &+= 1
            s.status = .idle
            return true
        }
    }

    /// Leases a text model: the current backend's, or `model` (a model id of the store, or the
    /// path of a GGUF file) with the backend's context and threads (or `options`: a server's own)
    /// — several text models in one runtime, each held by the one residency cache. Downloaded on
    /// first use, loaded on a miss.
    package func lease(model: String? = nil, keepAlive: KeepAlive? = nil, options: LoadOptions? = nil) async throws(RuntimeError) -> TextGenerationLease {
        var (backend, generation) = state.withLock { ($0.backend, $0.generation) }
        if let options { backend.options = options }
        let loader: LanguageModelLoader
        if let model, model != backend.modelId {
            backend = TextGenerationBackend(modelId: model, options: backend.options)
            loader = try await self.loader(model, options: backend.options)
        } else {
            loader = try await self.loader(backend.modelId, options: backend.options)
        }
        let lease = try await residency.lease(loader, keepAlive: keepAlive)
        return TextGenerationLease(backend: backend, generation: generation, lease: lease) { [weak self] metrics, lease in
            guard let self else { return }
            self.events.publish(.generation(modelId: lease.backend.modelId, metrics: metrics))
            self.set(.ready(modelId: lease.backend.modelId), ifGeneration: lease.generation)
        }
    }

    /// The loader of a model id, or of a GGUF file given by its path (loaded in place, never
    /// copied into the store).
    private func loader(_ reference: String, options: LoadOptions) async throws(RuntimeError) -> LanguageModelLoader {
        if reference.hasSuffix(".gguf"), FileManager.default.fileExists(atPath: reference) {
            return LanguageModelLoader(modelId: reference, path: reference, contextLength: options.contextLength, threads: options.threads)
        }
        let installed = try await downloads.installed(reference)
        return try engine.typedLoader(for: installed.entry, in: installed.directory, options: options)
    }

    /// Leases the model, runs `body` on a session, releases.
    nonisolated(nonsending) package func withSession<T>(keepAlive: KeepAlive? = nil, _ body: (Session, LanguageModel) throws -> T) async throws -> T {
        let lease = try await lease(keepAlive: keepAlive)
        do {
            let result = try lease.withSession { try body($0, lease.model) }
            await lease.release()
            return result
        } catch {
            await lease.release()
            throw error
        }
    }

    /// Loads the current backend's model ahead of the first op. Returns false, publishing nothing,
    /// when the backend was swapped while it downloaded or loaded.
    @discardableResult
    package func prepare() async throws(RuntimeError) -> Bool {
        let generation = self.generation
        set(.preparing, ifGeneration: generation)
        let lease: TextGenerationLease
        do { lease = try await self.lease() } catch {
            set(.failed(error), ifGeneration: generation)
            throw error
        }
        await lease.release()
        return set(.ready(modelId: lease.backend.modelId), ifGeneration: generation)
    }

    @discardableResult
    private func set(_ status: TextGenerationStatus, ifGeneration generation: UInt64) -> Bool {
        state.withLock { s in
            guard s.generation == generation else { return false }
            s.status = status
            return true
        }
    }
}

/// Where the text feature's current backend stands.
package enum TextGenerationStatus: Sendable, Equatable {
    case idle
    case preparing
    case ready(modelId: String)
    case failed(RuntimeError)
}
