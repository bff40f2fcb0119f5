import Foundation
import ModelStore
import Runtime

/// The models on this machine: what the catalog holds and what is installed, downloads that
/// resume and verify, imports, removals and disk use — Ollama's `list`, `pull`, `rm` and `show`,
/// and what `ondevice models` runs on. Downloads go through the same store the ops fetch from on
/// first use, so a model fetched here cannot be told from one fetched when first needed.
///
/// ```swift
/// let models = try await ai.modelLibrary()
/// try await models.download("whisper-base-ct2") { print($0.receivedBytes, "of", $0.totalBytes ?? 0) }
/// for model in await models.list() where model.state == .installed { print(model.id) }
/// ```
public struct ModelLibrary: Sendable {
    let store: ModelStore

    /// The store's root folder.
    public var root: String { store.layout.root }

    /// Every model the catalog holds (pinned and added), with its state here.
    public func list() async -> [ModelInfo] { await store.list().map(ModelInfo.init) }

    /// Model `id`; throws when the catalog has none by that id.
    public func info(_ id: String) async throws -> ModelInfo {
        ModelInfo(try await call(id) { store in try await store.get(id) })
    }

    /// Checks installed model `id`'s files: presence, sizes, each format's header, then SHA-256.
    /// Reuses the last answer while no file has changed, unless `rehash`.
    public func validate(_ id: String, rehash: Bool = false) async throws -> ModelValidation {
        let report = try await call(id) { store in try await store.validate(id, force: rehash) }
        return ModelValidation(model: id, problem: report.problem.map(\.description), reusedEarlierCheck: report.reusedCache,
                               bytesHashed: report.bytesHashed)
    }

    /// Downloads model `id` (a catalog id, or one added with `register`) unless it is installed:
    /// resumed from whatever an interrupted download left, verified, and moved into place whole.
    @discardableResult
    public func download(_ id: String, progress: @escaping @Sendable (DownloadProgress) -> Void = { _ in }) async throws -> ModelInfo {
        ModelInfo(try await call(id) { store in
            try SafeName.checkModelId(id)
            return try await store.pull(id) { progress(DownloadProgress($0)) }
        })
    }

    /// Adds a model from `source` to the catalog without downloading it, and returns its id:
    /// `id`, or for Hugging Face a name made from the file's (`Org-Model.Q4_0.gguf` →
    /// `org-model.q4_0`). Registering the same source, id and kind again keeps the sizes and
    /// digests an earlier download pinned.
    @discardableResult
    public func register(_ source: DownloadSource, id: String? = nil, kind: ModelInfo.Kind? = nil) async throws -> String {
        let spec = try source.spec(id: id)
        return try await call(id) { store in
            if let existing = try? await store.catalog.entry(id: spec.id), existing.matches(spec, kind: kind?.storeKind) { return existing.id }
            return try await store.register(spec, kind: kind?.storeKind ?? .llm)
        }
    }

    /// Copies the file or folder at `path` into the store as `id`. A pinned catalog id takes its
    /// pinned sizes and digests, and every file must match them. The kind is the catalog's, or
    /// `kind`, or told from the files.
    @discardableResult
    public func importModel(at path: String, id: String, kind: ModelInfo.Kind? = nil) async throws -> ModelInfo {
        ModelInfo(try await call(id) { store in try await store.importModel(id: id, from: path, kind: kind?.storeKind) })
    }

    /// Deletes model `id`'s files and any partial download; its catalog entry stays, so it can
    /// be downloaded again. Throws when nothing of it is on disk.
    public func remove(_ id: String) async throws {
        let removed = try await call(id) { store in try await store.delete(id) }
        if !removed { throw OnDeviceError(store: .notInstalled(id: id)) }
    }

    /// Bytes per model with anything on disk, their total, and the room left.
    public func storage() async -> ModelStorage {
        let report = await store.storage()
        return ModelStorage(root: root, models: report.models.map(ModelInfo.init), totalBytes: report.totalBytes, freeBytes: report.freeBytes)
    }

    /// Downloads every model of `plan` not installed yet, in order; an unknown id fails before
    /// any download starts. Returns the plan's models, installed.
    @discardableResult
    public func prefetch(_ plan: PrefetchPlan, progress: @escaping @Sendable (DownloadProgress) -> Void = { _ in }) async throws -> [ModelInfo] {
        let ids = plan.modelIds
        for id in ids { _ = try await call(id) { store in try await store.catalog.entry(id: id) } }
        var installed: [ModelInfo] = []
        for id in ids { installed.append(try await download(id, progress: progress)) }
        return installed
    }

    /// Runs a store step, turning its error into the SDK's.
    private func call<T>(_ id: String?, _ body: (ModelStore) async throws -> T) async throws -> T {
        do { return try await body(store) } catch let error as StoreError { throw OnDeviceError(store: error, model: id) }
    }
}

extension OnDeviceAI {
    /// The model store this instance runs on (`Configuration.storeRoot`).
    public func modelLibrary() async throws -> ModelLibrary { ModelLibrary(store: try await runtime().store) }
}

extension PullSpec {
    var id: String {
        switch self {
        case .catalog(let id), .huggingFace(let id, _, _, _, _), .url(let id, _, _): id
        }
    }
}

extension CatalogEntry {
    /// Whether this entry is what registering `spec` (as `kind`, when given) would make.
    func matches(_ spec: PullSpec, kind: ModelKind?) -> Bool {
        guard kind == nil || self.kind == kind, files.count == 1 else { return false }
        switch spec {
        case .catalog: return true
        case let .huggingFace(_, repo, revision, file, sha256):
            return source == .huggingFace(repo: repo, revision: revision) && files[0].sourcePath == file
                && (sha256 == nil || files[0].sha256 == sha256)
        case let .url(_, url, sha256):
            return source == .url && files[0].sourcePath == url.absoluteString && files[0].sha256 == sha256
        }
    }
}
