/// What a model does; decides which runtime loads it.
package enum ModelKind: String, Sendable, Equatable, Codable, CaseIterable {
    case llm, embedding, asr, vad, tts, vision
    /// A LoRA adapter: not run alone, applied to the text model named by `CatalogEntry.baseModel`.
    case lora
}

/// Where a model's files come from for users with internet.
package enum ModelSource: Sendable, Equatable, Codable {
    /// A Hugging Face-style repository: `{base}/{repo}/resolve/{revision}/{file.sourcePath}`.
    case huggingFace(repo: String, revision: String)
    /// One plain URL per file (`ModelFile.sourcePath` holds the URL).
    case url
    /// Imported from a local file or folder; nothing to download.
    case local(path: String)
}

/// One file of a model.
package struct ModelFile: Sendable, Equatable, Codable {
    /// Path inside the model directory (may contain `/`, e.g. `1_Pooling/config.json`).
    package var name: String
    /// Exact size, when known before download (always for catalog entries).
    package var bytes: Int64?
    /// Lowercase hex SHA-256, when known before download (always for catalog entries).
    package var sha256: String?
    /// Path inside the source repository, or the full URL for `.url` sources.
    package var sourcePath: String

    package init(name: String, bytes: Int64?, sha256: String?, sourcePath: String) {
        self.name = name
        self.bytes = bytes
        self.sha256 = sha256
        self.sourcePath = sourcePath
    }
}

/// A model the store knows: its identity, source, layout and files.
package struct CatalogEntry: Sendable, Equatable, Codable {
    package var id: String
    package var kind: ModelKind
    package var license: String
    package var source: ModelSource
    /// First level of the layout, `<root>/<repo>/<revision>/<variant>/`.
    package var repo: String
    package var revision: String
    package var variant: String
    package var files: [ModelFile]
    /// For adapters (`kind == .lora`): the id of the model they were made for and checked against.
    package var baseModel: String?

    package init(id: String, kind: ModelKind, license: String, source: ModelSource,
                 repo: String, revision: String, variant: String, files: [ModelFile], baseModel: String? = nil) {
        self.id = id
        self.kind = kind
        self.license = license
        self.source = source
        self.repo = repo
        self.revision = revision
        self.variant = variant
        self.files = files
        self.baseModel = baseModel
    }

    /// A Hugging Face entry: the layout follows the source repo and revision.
    package static func huggingFace(id: String, kind: ModelKind, license: String, repo: String,
                                    revision: String, variant: String, files: [ModelFile]) -> CatalogEntry {
        CatalogEntry(id: id, kind: kind, license: license, source: .huggingFace(repo: repo, revision: revision),
                     repo: repo, revision: revision, variant: variant, files: files)
    }

    /// Sum of the known file sizes.
    package var knownBytes: Int64 { files.reduce(0) { $0 + ($1.bytes ?? 0) } }

    /// Rejects ids, layout components and file names that could escape the store root.
    package func checkNames() throws(StoreError) {
        try SafeName.checkModelId(id)
        try SafeName.checkRepo(repo)
        try SafeName.checkLayoutComponent(revision)
        try SafeName.checkLayoutComponent(variant)
        var seen = Set<String>()
        for file in files {
            try SafeName.checkRelativeFile(file.name)
            guard seen.insert(file.name).inserted else { throw .catalogConflict(id: id, detail: "file \(file.name) listed twice") }
        }
    }
}
