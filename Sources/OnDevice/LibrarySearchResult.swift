/// What a search found.
public struct LibrarySearchResult: Sendable, Equatable {
    public let method: LibrarySearchMethod
    /// Best first.
    public let passages: [LibraryPassage]
}
