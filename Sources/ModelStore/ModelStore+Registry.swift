import Foundation

extension ModelStore {
    /// The pinned catalog plus the custom entries saved in `<root>/.meta/registry.json`.
    static func loadCatalog(_ layout: StoreLayout) throws(StoreError) -> Catalog {
        var catalog = Catalog()
        for entry in try loadRegistry(layout) { try catalog.register(entry) }
        return catalog
    }

    private static func loadRegistry(_ layout: StoreLayout) throws(StoreError) -> [CatalogEntry] {
        guard let data = FileSystem.readData(layout.registryPath) else { return [] }
        do {
            return try JSONDecoder().decode([CatalogEntry].self, from: data)
        } catch {
            throw .manifestInvalid(path: layout.registryPath, detail: "\(error)")
        }
    }

    /// Adds (or replaces) a custom model and saves it for later processes. Pinned ids are refused.
    package func register(_ entry: CatalogEntry) async throws(StoreError) {
        var updated = catalog
        try updated.register(entry)
        try await saveRegistered(entry)
        catalog = updated
    }

    /// Registers what a pull spec names and returns the id to pull.
    package func register(_ spec: PullSpec, kind: ModelKind = .llm) async throws(StoreError) -> String {
        switch spec {
        case .catalog(let id):
            _ = try catalog.entry(id: id)
            return id
        case .huggingFace(let id, let repo, let revision, let file, let sha256):
            let entry = CatalogEntry.custom(id: id, kind: kind, repo: repo, revision: revision,
                                            files: [ModelFile(name: file, bytes: nil, sha256: sha256, sourcePath: file)])
            try await register(entry)
            return id
        case .url(let id, let url, let sha256):
            let name = url.lastPathComponent.isEmpty || url.lastPathComponent == "/" ? "model.bin" : url.lastPathComponent
            try await register(CatalogEntry.custom(id: id, kind: kind, url: url.absoluteString, fileName: name, sha256: sha256))
            return id
        }
    }

    /// Adds a local file or folder as model `id`. A pinned id gets its pinned metadata and every
    /// file is verified against it; any other id is registered as a custom model whose digests are
    /// taken while copying. A single file brings the files that belong with it: a Piper voice's
    /// `.onnx` its `.onnx.json` config (and `MODEL_CARD`), a pinned model's other files from the
    /// same folder. `kind` nil takes it from the file: `.onnx` is a voice, anything else an LLM.
    package func importModel(id: String, from path: String, kind: ModelKind? = nil) async throws(StoreError) -> InstalledModel {
        try SafeName.checkModelId(id)
        let isFolder = FileSystem.isDirectory(path)
        guard isFolder || FileSystem.fileSize(path) != nil else { throw .io(path: path, errno: ENOENT) }
        let kind = kind ?? (path.hasSuffix(".onnx") ? .tts : .llm)
        let folder = isFolder ? path : (path as NSString).deletingLastPathComponent
        var relative: [String]
        if isFolder {
            relative = DirectorySnapshot.take(of: path).entries.filter { $0.kind == .file }.map(\.path)
        } else if Catalog.isPinned(id), let pinned = try? catalog.entry(id: id), pinned.files.count > 1 {
            // The pinned entry's files that sit beside the one named (each checked below).
            relative = pinned.files.map(\.name).filter { FileSystem.fileSize(folder + "/" + $0) != nil }
        } else {
            relative = try Self.sidecarFiles(of: path)
        }
        if relative.isEmpty { relative = [(path as NSString).lastPathComponent] }
        let sourceOf: (String) -> String = { folder + "/" + $0 }
        var entry: CatalogEntry
        var sources: [String]
        if Catalog.isPinned(id) {
            entry = try catalog.entry(id: id)
            if !isFolder && entry.files.count == 1 {
                sources = [path]  // any file name: the pinned digest says whether it is the model
            } else {
                sources = []
                for file in entry.files {
                    guard relative.contains(file.name) else { throw .missingFile(file: file.name) }
                    sources.append(sourceOf(file.name))
                }
            }
        } else {
            let files = relative.map { ModelFile(name: $0, bytes: nil, sha256: nil, sourcePath: $0) }
            entry = .imported(id: id, kind: kind, path: path, files: files)
            try entry.checkNames()
            sources = relative.map(sourceOf)
        }
        let installer = ModelInstaller(configuration: configuration, layout: layout)
        let installed = try await installer.installCopies(entry, sources: sources)
        if !Catalog.isPinned(id) { try await register(installed) }
        return InstalledModel(entry: installed, directory: layout.modelDirectory(installed))
    }

    /// Saves what a pull learned about a custom entry (sizes and digests it did not know).
    func updateRegistered(_ entry: CatalogEntry) async throws(StoreError) {
        guard !Catalog.isPinned(entry.id) else { return }
        try await register(entry)
    }

    /// Read-modify-write of the registry under its lock, so concurrent CLI runs do not lose entries.
    private func saveRegistered(_ entry: CatalogEntry) async throws(StoreError) {
        try FileSystem.makeDirectories(layout.root + "/.locks")
        try FileSystem.makeDirectories(layout.root + "/.meta")
        let lock = try await FileLock.acquire(layout.registryLockPath)
        do throws(StoreError) {
            var entries = try Self.loadRegistry(layout)
            entries.removeAll { $0.id == entry.id }
            entries.append(entry)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            guard let data = try? encoder.encode(entries) else { throw StoreError.io(path: layout.registryPath, errno: EINVAL) }
            try FileSystem.writeAtomically(data, to: layout.registryPath)
        } catch {
            lock.release()
            throw error
        }
        lock.release()
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
