/// What `PhotoLibrary.indexText(directory:)` did.
public struct PhotoTextIndexing: Sendable, Equatable {
    /// Photos in the folder.
    public let photos: Int
    /// Photos read or labelled this time (new, changed, or not yet labelled); the rest were
    /// unchanged and kept.
    public let read: Int
    /// Files that could not be read, one line each naming the file and the fault.
    public let skipped: [String]
    /// The image-label model whose labels were added (`efficientnet-lite0`), or nil with
    /// `notes` saying why photos are indexed by their text alone.
    public let labelModel: String?
    /// The embedding model whose vectors let search match by meaning, or nil with `notes`
    /// saying why search matches words only.
    public let embeddingModel: String?
    /// Why a model was not used, one line each.
    public let notes: [String]
}
