/// The outcome of culling a folder.
public struct PhotoCullResult: Sendable, Equatable {
    public let bursts: [PhotoBurst]
    /// Files that could not be read, one line each naming the file and the fault.
    public let skipped: [String]
    public let backend: PhotoBackend
}
