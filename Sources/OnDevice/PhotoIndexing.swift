/// The outcome of indexing a folder: how many photos are described and which could not be read.
public struct PhotoIndexing: Sendable, Equatable {
    public let indexed: Int
    /// One line per file that could not be read, naming it and the fault.
    public let skipped: [String]
    public let backend: PhotoBackend
}
