/// The models the store can resolve: the compiled-in pinned list plus custom registrations.
package struct Catalog: Sendable, Equatable {
    package private(set) var entries: [CatalogEntry]

    /// The pinned catalog alone.
    package init() { entries = Catalog.pinned }

    package init(entries: [CatalogEntry]) { self.entries = entries }

    package func entry(id: String) throws(StoreError) -> CatalogEntry {
        try SafeName.checkModelId(id)
        guard let entry = entries.first(where: { $0.id == id }) else { throw .unknownModel(id: id) }
        return entry
    }

    /// Whether `id` is one of the pinned models (their metadata cannot be overridden).
    package static func isPinned(_ id: String) -> Bool { pinned.contains { $0.id == id } }

    /// Adds or replaces a custom entry. Pinned ids are refused.
    package mutating func register(_ entry: CatalogEntry) throws(StoreError) {
        try entry.checkNames()
        guard !Catalog.isPinned(entry.id) else { throw .catalogConflict(id: entry.id, detail: "is a pinned catalog id") }
        entries.removeAll { $0.id == entry.id }
        entries.append(entry)
    }

    /// The entry for the default model of `op`.
    package func entry(for op: Op) throws(StoreError) -> CatalogEntry { try entry(id: op.defaultModelId) }
}

extension CatalogEntry {
    /// A custom model from a Hugging Face repo. Files without a sha256 are checked against the
    /// server's `X-Linked-Etag` when it sends one, and pinned to what was downloaded otherwise.
    package static func custom(id: String, kind: ModelKind = .llm, repo: String, revision: String = "main",
                               files: [ModelFile], license: String = "unknown") -> CatalogEntry {
        .huggingFace(id: id, kind: kind, license: license, repo: repo, revision: revision, variant: id, files: files)
    }

    /// A custom single-file model from a plain URL, pinned by its sha256.
    package static func custom(id: String, kind: ModelKind = .llm, url: String, fileName: String,
                               sha256: String, bytes: Int64? = nil, license: String = "unknown") -> CatalogEntry {
        CatalogEntry(id: id, kind: kind, license: license, source: .url, repo: "url/\(id)",
                     revision: String(sha256.prefix(16)), variant: "file",
                     files: [ModelFile(name: fileName, bytes: bytes, sha256: sha256, sourcePath: url)])
    }

    /// A model imported from the local file system; the files are hashed while being copied.
    package static func imported(id: String, kind: ModelKind = .llm, path: String, files: [ModelFile],
                                 license: String = "unknown") -> CatalogEntry {
        CatalogEntry(id: id, kind: kind, license: license, source: .local(path: path), repo: "local/\(id)",
                     revision: "local", variant: "import", files: files)
    }
}
