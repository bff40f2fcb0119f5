/// A document to index.
package struct IndexDocument: Sendable, Equatable {
    /// Unique within the index; adding an existing id replaces that document.
    package var id: String
    package var text: String
    /// Free-form string pairs returned with every hit (source path, title, …).
    package var metadata: [String: String]

    package init(id: String, text: String, metadata: [String: String] = [:]) {
        self.id = id
        self.text = text
        self.metadata = metadata
    }
}
