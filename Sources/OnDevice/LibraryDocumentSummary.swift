/// An indexed document and how many passages it was cut into.
public struct LibraryDocumentSummary: Sendable, Equatable {
    public let id: String
    public let passages: Int
}
