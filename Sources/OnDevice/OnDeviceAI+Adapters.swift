import ModelStore
import Models
import Runtime

/// A LoRA adapter loaded beside the resident text model: what `loadedAdapters()` reports.
public struct LoadedAdapter: Sendable, Equatable {
    /// The adapter file (what `LoRA.path` names).
    public var path: String
    /// The adapter's name (its GGUF `general.name`, else the file name).
    public var name: String
    /// Its largest rank and its alpha (the delta is scaled by alpha / rank).
    public var rank: Int
    public var alpha: Float
    /// Bytes it adds to the text model's resident size (counted against the memory budget).
    public var bytes: Int
}

extension OnDeviceAI {
    /// The adapter installed in the model store under `id` (`ondevice lora import`, or a pull of
    /// a `lora` artifact), to apply at `scale`.
    public func adapter(_ id: String, scale: Float = 1) async throws -> LoRA {
        let installed: InstalledModel?
        do { installed = try await runtime().store.resolve(id) } catch {
            throw OnDeviceError.invalidArgument("LoRA adapter '\(id)': \(error)")
        }
        guard let installed, installed.entry.kind == .lora, let path = installed.firstPath(withSuffix: ".gguf") else {
            throw OnDeviceError.invalidArgument("no LoRA adapter '\(id)' is installed in the model store")
        }
        return LoRA(path: path, scale: scale)
    }

    /// The adapters loaded for the text model. Which adapters apply is each request's choice
    /// (`TextOptions.adapters`); an adapter stays loaded with the resident model once a request
    /// has used it, until `unloadAdapters` or until the model leaves memory. Empty while the
    /// text model is not resident (nothing is loaded to answer).
    public func loadedAdapters() async throws -> [LoadedAdapter] {
        guard let resident = try await residentTextModel() else { return [] }
        let loaded = resident.lease.model.loadedAdapters.map { path, a in
            LoadedAdapter(path: path, name: a.name, rank: a.maxRank, alpha: a.alpha, bytes: a.byteCount)
        }
        await resident.release()
        return loaded
    }

    /// Unloads the given adapters, or every adapter when `adapters` is nil. Requests already
    /// running keep theirs until they finish; a later request naming one loads it again.
    public func unloadAdapters(_ adapters: [LoRA]? = nil) async throws {
        guard let resident = try await residentTextModel() else { return }
        let model = resident.lease.model
        for path in adapters?.map(\.path) ?? model.loadedAdapters.map(\.path) { model.unloadAdapter(path: path) }
        await resident.release()
    }

    /// A lease on the text model when it is already resident; nil (and nothing loaded) when not.
    private func residentTextModel() async throws -> TextGenerationLease? {
        let runtime = try await runtime()
        let id = runtime.textGeneration.backend.modelId
        guard await runtime.residency.snapshot().models.contains(where: { $0.modelId == id && !$0.loading }) else { return nil }
        return try await runtime.textGeneration.lease()
    }
}
