/// The store's disk use and the room left on its file system (`ModelLibrary.storage`).
public struct ModelStorage: Sendable, Equatable {
    /// The store's root folder.
    public var root: String
    /// Models with any bytes on disk, installed or partly downloaded.
    public var models: [ModelInfo]
    public var totalBytes: Int64
    /// Nil when the root does not exist yet.
    public var freeBytes: Int64?
}
