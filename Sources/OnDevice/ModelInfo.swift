import Foundation
import ModelStore

/// A model the store knows (a pinned catalog entry, or one registered or imported), with where it
/// stands on this machine: what `ModelLibrary.list` and `info` answer.
public struct ModelInfo: Sendable, Equatable {
    /// What a model does; decides which engine runs it.
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        case llm, embedding, asr, vad, tts, vision
        /// A LoRA adapter, applied to the text model named by `baseModel`.
        case lora
    }

    /// Whether the model's files are in place.
    public enum State: String, Sendable, Equatable {
        /// Every file is in place.
        case installed
        /// Not in place, but an interrupted download left bytes that the next download resumes.
        case partial
        case absent
    }

    /// Where the files come from.
    public enum Source: Sendable, Equatable {
        /// A Hugging Face-style repository at a revision (base URL from `HF_ENDPOINT`).
        case huggingFace(repo: String, revision: String)
        /// One plain URL per file (`File.sourcePath` holds it).
        case url
        /// Imported from a local file or folder; nothing to download.
        case local(path: String)
    }

    /// One file of the model.
    public struct File: Sendable, Equatable {
        /// Path inside the model's directory (may contain `/`).
        public var name: String
        /// Exact size and lowercase hex SHA-256, when known (always for pinned models; for
        /// registered ones, once downloaded).
        public var bytes: Int64?
        public var sha256: String?
        /// Path inside the source repository, or the URL for `.url` sources.
        public var sourcePath: String
        /// Its absolute path (whether or not it is there yet).
        public var path: String
    }

    public var id: String
    public var kind: Kind
    public var state: State
    public var license: String
    public var source: Source
    /// Pinned in the catalog this build ships (sizes and digests fixed), rather than added by the user.
    public var isPinned: Bool
    /// For adapters: the model they were made for.
    public var baseModel: String?
    public var files: [File]
    /// Bytes on disk: the installed files, or the partial download's.
    public var bytesOnDisk: Int64
    public var lastUsed: Date?
    /// The model's directory in the store, whether or not it exists yet.
    public var directory: String

    /// The sum of the file sizes, or nil while any is unknown.
    public var totalBytes: Int64? {
        files.allSatisfy { $0.bytes != nil } ? files.reduce(0) { $0 + ($1.bytes ?? 0) } : nil
    }

    /// The sum of the sizes known so far.
    public var knownBytes: Int64 { files.reduce(0) { $0 + ($1.bytes ?? 0) } }

    /// The absolute path of the file named `name`, nil when the model has none.
    public func path(of name: String) -> String? { files.first { $0.name == name }?.path }

    /// The first file whose name ends with `suffix` (`.gguf`), for single-weights-file models.
    public func firstPath(withSuffix suffix: String) -> String? { files.first { $0.name.hasSuffix(suffix) }?.path }

    init(_ status: ModelStatus) {
        self.init(status.entry, directory: status.directory, state: State(rawValue: status.state.rawValue) ?? .absent,
                  bytesOnDisk: status.bytesOnDisk, lastUsed: status.lastUsed)
    }

    init(_ installed: InstalledModel) {
        self.init(installed.entry, directory: installed.directory, state: .installed, bytesOnDisk: installed.entry.knownBytes, lastUsed: nil)
    }

    private init(_ entry: CatalogEntry, directory: String, state: State, bytesOnDisk: Int64, lastUsed: Date?) {
        id = entry.id
        kind = Kind(rawValue: entry.kind.rawValue) ?? .llm
        self.state = state
        license = entry.license
        source = switch entry.source {
        case let .huggingFace(repo, revision): .huggingFace(repo: repo, revision: revision)
        case .url: .url
        case .local(let path): .local(path: path)
        }
        isPinned = Catalog.isPinned(entry.id)
        baseModel = entry.baseModel
        files = entry.files.map { File(name: $0.name, bytes: $0.bytes, sha256: $0.sha256, sourcePath: $0.sourcePath, path: directory + "/" + $0.name) }
        self.bytesOnDisk = bytesOnDisk
        self.lastUsed = lastUsed
        self.directory = directory
    }
}

extension ModelInfo.Kind {
    var storeKind: ModelKind { ModelKind(rawValue: rawValue) ?? .llm }
}
