import Foundation
import ModelStore
import TextGeneration

/// The LoRA adapter lifecycle over the model store, shared by the SDK and the CLI: register an
/// adapter's source with the model it fits, query the adapters for a model, download (the
/// store's resume, verify and atomic-install rules), import a local file, remove. An adapter's
/// entry names its base model only after the file was opened against that model (architecture,
/// every adapted weight's name and shape), so the catalog never lists an adapter for a model it
/// cannot be applied to; a downloaded file that does not fit is deleted again.
package struct AdapterCatalog: Sendable {
    package let store: ModelStore

    package init(store: ModelStore) { self.store = store }

    /// Registers adapter `spec` (an `hf:` spec or URL) for `base` without downloading it.
    /// The base is recorded now and checked when the file arrives (`pull`).
    @discardableResult
    package func register(_ spec: PullSpec, base: String) async throws(RuntimeError) -> String {
        let id: String
        var entry: CatalogEntry
        do {
            _ = try await store.catalog.entry(id: base)
            id = try await store.register(spec, kind: .lora)
            entry = try await store.catalog.entry(id: id)
        } catch { throw .store(error) }
        guard entry.kind == .lora else { throw .notAnAdapter(id: id) }
        entry.baseModel = base
        do { try await store.register(entry) } catch { throw .store(error) }
        return id
    }

    /// Adapters in the catalog, installed or not; only those for `base` when given.
    package func adapters(for base: String? = nil) async -> [ModelStatus] {
        await store.list().filter { $0.entry.kind == .lora && (base == nil || $0.entry.baseModel == base) }
    }

    /// Downloads adapter `id` (registered with its base), then checks it against that base: it
    /// stays installed only when it fits.
    package func pull(_ id: String, progress: @escaping @Sendable (PullProgress) -> Void = { _ in }) async throws(RuntimeError) -> InstalledModel {
        let entry: CatalogEntry
        do { entry = try await store.catalog.entry(id: id) } catch { throw .store(error) }
        guard entry.kind == .lora else { throw .notAnAdapter(id: id) }
        guard let base = entry.baseModel else { throw .adapterWithoutBase(id: id) }
        let installed: InstalledModel
        do { installed = try await store.pull(id, progress: progress) } catch { throw .store(error) }
        do {
            try await check(adapter: try adapterPath(installed), id: id, base: base)
        } catch {
            _ = try? await store.delete(id)
            throw error
        }
        return installed
    }

    /// Copies the adapter at `path` into the store as `id` for `base`, after checking it fits.
    package func importAdapter(at path: String, id: String, base: String) async throws(RuntimeError) -> InstalledModel {
        try await check(adapter: path, id: id, base: base)
        do {
            var installed = try await store.importModel(id: id, from: path, kind: .lora)
            installed.entry.baseModel = base
            try await store.register(installed.entry)
            return installed
        } catch { throw .store(error) }
    }

    /// Deletes adapter `id`'s files; its registration stays, so it can be pulled again. False
    /// when nothing was installed.
    @discardableResult
    package func remove(_ id: String) async throws(RuntimeError) -> Bool {
        let kind: ModelKind
        do { kind = try await store.get(id).entry.kind } catch { throw .store(error) }
        guard kind == .lora else { throw .notAnAdapter(id: id) }
        do { return try await store.delete(id) } catch { throw .store(error) }
    }

    /// Opens `adapter` against `base` (pulled first when it is not installed yet).
    package func check(adapter path: String, id: String, base: String) async throws(RuntimeError) {
        let installed: InstalledModel
        do {
            if let resolved = try await store.resolve(base) { installed = resolved } else { installed = try await store.pull(base) }
        } catch { throw .store(error) }
        guard let file = installed.firstPath(withSuffix: ".gguf") else { throw .load(modelId: base, reason: "no .gguf file") }
        let model: LanguageModel
        do { model = try LanguageModel(path: file) } catch { throw .load(modelId: base, reason: error.description) }
        do { _ = try model.loadAdapter(path: path) } catch {
            throw .adapterDoesNotFit(id: id, base: base, reason: error.description)
        }
    }

    private func adapterPath(_ installed: InstalledModel) throws(RuntimeError) -> String {
        guard installed.entry.files.count == 1, let path = installed.firstPath(withSuffix: ".gguf") ?? installed.filePaths.first else {
            throw .adapterDoesNotFit(id: installed.id, base: installed.entry.baseModel ?? "?",
                                     reason: "an adapter is one GGUF file; found \(installed.entry.files.count)")
        }
        return path
    }
}
