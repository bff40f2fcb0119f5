import Foundation
import ModelStore
import Runtime

/// A LoRA adapter in the catalog: registered with the model it fits, installed or not.
public struct AdapterInfo: Sendable, Equatable {
    public var id: String
    /// The text model the adapter was made for (checked against it when it was installed).
    public var baseModel: String?
    public var isInstalled: Bool
    /// The file's size and sha256, once known (pinned at registration or taken at install).
    public var bytes: Int64?
    public var sha256: String?
    /// The installed file, to pass as `LoRA(path:)`; nil when not installed.
    public var path: String?

    init(_ status: ModelStatus) {
        id = status.entry.id
        baseModel = status.entry.baseModel
        isInstalled = status.state == .installed
        bytes = status.entry.files.first?.bytes
        sha256 = status.entry.files.first?.sha256
        path = isInstalled ? status.entry.files.first.map { status.directory + "/" + $0.name } : nil
    }
}

extension OnDeviceAI {
    /// Registers an adapter for `baseModel` at `source` without downloading it; it is checked
    /// against the base model when `downloadAdapter` fetches it. Its id is `id`, or for Hugging
    /// Face one made from the file's name.
    @discardableResult
    public func registerAdapter(_ id: String?, for baseModel: String, from source: AdapterSource) async throws -> AdapterInfo {
        let spec: PullSpec
        do { spec = try source.spec(id: id) } catch {
            throw OnDeviceError.invalidArgument("LoRA adapter '\(id ?? "\(source)")': \(error)")
        }
        let catalog = try await adapterCatalog()
        try await adapterCall(spec.id) { _ = try await catalog.register(spec, base: baseModel) }
        return try await adapterInfo(spec.id)
    }

    /// The adapters in the catalog (installed or not), only those for `baseModel` when given.
    public func adapters(for baseModel: String? = nil) async throws -> [AdapterInfo] {
        try await adapterCatalog().adapters(for: baseModel).map(AdapterInfo.init)
    }

    /// Downloads registered adapter `id` through the model store (resumed, verified, installed
    /// atomically), then checks it against its base model; one that does not fit is not kept.
    @discardableResult
    public func downloadAdapter(_ id: String, progress: @escaping @Sendable (DownloadProgress) -> Void = { _ in }) async throws -> AdapterInfo {
        let catalog = try await adapterCatalog()
        try await adapterCall(id) { _ = try await catalog.pull(id) { progress(DownloadProgress($0)) } }
        return try await adapterInfo(id)
    }

    /// Copies the adapter file at `path` into the store as `id`, after checking it fits `baseModel`.
    @discardableResult
    public func importAdapter(at path: String, id: String, for baseModel: String) async throws -> AdapterInfo {
        let catalog = try await adapterCatalog()
        try await adapterCall(id) { _ = try await catalog.importAdapter(at: path, id: id, base: baseModel) }
        return try await adapterInfo(id)
    }

    /// Unloads adapter `id` from the resident text model and deletes its file (the registration
    /// stays, so it can be downloaded again). Throws when nothing of it is on disk.
    public func removeAdapter(_ id: String) async throws {
        let info = try await adapterInfo(id)
        if let path = info.path { try await unloadAdapters([LoRA(path: path)]) }
        let catalog = try await adapterCatalog()
        var removed = false
        try await adapterCall(id) { removed = try await catalog.remove(id) }
        if !removed { throw OnDeviceError(store: .notInstalled(id: id)) }
    }

    private func adapterCatalog() async throws -> AdapterCatalog { AdapterCatalog(store: try await runtime().store) }

    private func adapterInfo(_ id: String) async throws -> AdapterInfo {
        guard let status = try await adapterCatalog().adapters().first(where: { $0.entry.id == id }) else {
            throw OnDeviceError.invalidArgument("no LoRA adapter '\(id)' in the catalog")
        }
        return AdapterInfo(status)
    }

    /// Runs a catalog step, turning its runtime error into the SDK's error for adapter `id`.
    private func adapterCall(_ id: String, _ body: () async throws -> Void) async throws {
        do { try await body() } catch let error as RuntimeError {
            throw OnDeviceError.adapterUnusable(path: id, reason: error.description)
        }
    }
}
