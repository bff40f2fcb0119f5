import Foundation
import ModelStore
import Runtime
import Synchronization

/// The models behind the API: which ids are served, and running a request on one of them. Every
/// model is leased through the runtime's residency cache (so the memory budget, keep-alive and
/// pressure handling apply) after the request has passed the model's admission queue.
package final class ModelHost: Sendable {
    package let runtime: OnDeviceRuntime
    let configuration: ServerConfiguration
    private let queues = Mutex<[String: ModelQueue]>([:])
    /// The kinds this server has endpoints for.
    static let servedKinds: Set<ModelKind> = [.llm, .embedding, .asr]

    package init(runtime: OnDeviceRuntime, configuration: ServerConfiguration) {
        self.runtime = runtime
        self.configuration = configuration
    }

    /// Installed models the server offers, in catalog order.
    package func servedModels() async -> [ModelStatus] {
        await runtime.store.list().filter { status in
            status.state == .installed && Self.servedKinds.contains(status.entry.kind)
                && (configuration.models.map { $0.contains(status.entry.id) } ?? true)
        }
    }

    /// The installed model `id`, which must be of `kind`. Blocks the connection thread briefly.
    func resolve(_ id: String, kind: ModelKind, endpoint: String) throws(ServerError) -> InstalledModel {
        if let allowed = configuration.models, !allowed.contains(id) { throw .modelNotFound(id) }
        let store = runtime.store
        let found: InstalledModel?
        do { found = try blockingAwait { try await store.resolve(id) } } catch { throw .modelNotFound(id) }
        guard let found else { throw .modelNotFound(id) }
        guard found.entry.kind == kind else { throw .wrongModelKind(model: id, endpoint: endpoint) }
        return found
    }

    /// The file behind a request's `lora` id: an existing file, or an installed store artifact of
    /// kind lora (the same two forms the CLI's `--lora` takes). Blocks the connection thread briefly.
    /// Clients on this machine may name an adapter file; a server reachable from elsewhere
    /// takes store ids only, so remote clients cannot probe (or load) arbitrary paths.
    func adapterPath(_ id: String) throws(ServerError) -> String {
        var isDirectory: ObjCBool = false
        if configuration.isLoopback, FileManager.default.fileExists(atPath: id, isDirectory: &isDirectory),
           !isDirectory.boolValue {
            return id
        }
        let store = runtime.store
        let found = try? blockingAwait { try await store.resolve(id) }
        guard let found = found ?? nil, found.entry.kind == .lora,
              let path = found.firstPath(withSuffix: ".gguf") ?? found.filePaths.first else { throw .adapterNotFound(id) }
        return path
    }

    package func queue(for id: String) -> ModelQueue {
        queues.withLock { q in
            if let existing = q[id] { return existing }
            let made = ModelQueue(maxRunning: configuration.maxRunningPerModel, maxWaiting: configuration.maxWaitingPerModel)
            q[id] = made
            return made
        }
    }

    /// Runs `body` on model `id`, leased through the runtime's engines (the same loaders every
    /// door uses) after waiting its turn. Returns nil when the client left while waiting.
    func withModel<Model: ResidentModel, T>(_ type: Model.Type, _ id: String, options: LoadOptions, responder: HTTPResponder,
                                            _ body: (Model) throws -> T) throws -> T? {
        let queue = queue(for: id)
        guard try queue.enter(model: id, isCancelled: { responder.isCancelled }) else { return nil }
        defer { queue.leave() }
        let runtime = runtime
        let lease: EngineLease<Model>
        do {
            lease = try blockingAwait { try await runtime.lease(Model.self, modelId: id, options: options) }
        } catch let error as RuntimeError {
            throw ServerError.modelFailed(model: id, reason: error.description)
        }
        defer { try? blockingAwait { await lease.release() } }
        return try body(lease.model)
    }

    /// Options for text sessions: the runtime's text backend, with the server's overrides.
    var textOptions: LoadOptions {
        let backend = runtime.textGeneration.backend.options
        return LoadOptions(contextLength: configuration.contextLength ?? backend.contextLength,
                           threads: configuration.threads ?? backend.threads)
    }

    var threads: Int { configuration.threads ?? runtime.textGeneration.backend.options.threads }
}
