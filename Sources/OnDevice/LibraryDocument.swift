import Foundation

/// A text to index: replaced when a document with its id is added again.
public struct LibraryDocument: Sendable, Equatable {
    public var id: String
    public var text: String
    /// Returned with every passage of the document (a file's path, its date, a URL).
    public var metadata: [String: String]

    public init(id: String, text: String, metadata: [String: String] = [:]) {
        self.id = id
        self.text = text
        self.metadata = metadata
    }
}
