import ModelStore

/// Leasing a model of any kind through the engine registry: the path every op other than text
/// generation takes (speech, voice activity, embeddings), so nothing loads a model behind the
/// residency cache's back.
extension OnDeviceRuntime {
    /// Leases catalog (or imported) model `modelId` as a `Model`: downloaded on first use, loaded
    /// by the engine for its kind on a cache miss, held until the lease is released. A path to a
    /// model file or folder of `Model`'s kind (`InstalledModel.inPlace`) is loaded where it lies,
    /// under its absolute path as id.
    package nonisolated func lease<Model: ResidentModel>(_ type: Model.Type, modelId: String, options: LoadOptions,
                                                          keepAlive: KeepAlive? = nil) async throws(RuntimeError) -> EngineLease<Model> {
        let inPlace: InstalledModel?
        do { inPlace = try InstalledModel.inPlace(modelId, kind: Model.kind) } catch { throw .store(error) }
        let installed = if let inPlace { inPlace } else { try await downloads.installed(modelId) }
        guard let engine = capabilities.engines.engine(for: installed.entry.kind) else {
            throw .noEngine(modelId: modelId, kind: installed.entry.kind)
        }
        return try await residency.lease(type, loader: try engine.loader(for: installed, options: options), keepAlive: keepAlive)
    }
}

extension OnDeviceRuntime {
    /// Leases model `modelId` of whatever kind the catalog says it is, loaded by that kind's
    /// engine with `textOptions` for a text model and `options` for any other: for warming a
    /// model before an op needs it.
    package nonisolated func leaseAnyKind(modelId: String, textOptions: LoadOptions, options: LoadOptions,
                                          keepAlive: KeepAlive? = nil) async throws(RuntimeError) -> any ModelLease {
        let installed = try await downloads.installed(modelId)
        let kind = installed.entry.kind
        guard let engine = capabilities.engines.engine(for: kind) else { throw .noEngine(modelId: modelId, kind: kind) }
        let loader = try engine.loader(for: installed, options: kind == .llm ? textOptions : options)
        return try await residency.lease(any: loader, keepAlive: keepAlive)
    }
}

extension Residency {
    /// Leases what `loader` loads, typed as `Model` (for loaders known only as existentials).
    package nonisolated func lease<Model: ResidentModel>(_ type: Model.Type, loader: any ResidentModelLoading,
                                                          keepAlive: KeepAlive? = nil) async throws(RuntimeError) -> EngineLease<Model> {
        let lease = try await self.lease(any: loader, keepAlive: keepAlive)
        guard let model = lease.residentModel as? Model else {
            await lease.release(keepAlive: nil)
            throw .modelTypeMismatch(modelId: loader.modelId, expected: "\(Model.self)", found: "\(Swift.type(of: lease.residentModel))")
        }
        return EngineLease(model: model, modelId: loader.modelId, lease: lease)
    }
}

/// An op's hold on a model of a known type: the model stays resident until `release`.
package final class EngineLease<Model: ResidentModel>: Sendable {
    package let model: Model
    package let modelId: String
    private let lease: any ModelLease

    init(model: Model, modelId: String, lease: any ModelLease) {
        self.model = model
        self.modelId = modelId
        self.lease = lease
    }

    /// Ends the lease; `keepAlive` overrides the one it was taken with. Twice does nothing.
    package func release(keepAlive: KeepAlive? = nil) async { await lease.release(keepAlive: keepAlive) }
}
