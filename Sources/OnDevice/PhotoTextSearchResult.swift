/// The photos a text query found, and how it matched.
public struct PhotoTextSearchResult: Sendable, Equatable {
    public let matches: [PhotoTextMatch]
    /// The embedding model that matched by meaning, or nil when only words were matched
    /// (`note` says why).
    public let embeddingModel: String?
    public let note: String?
}
