/// A model whose files are all in place under the store root.
package struct InstalledModel: Sendable, Equatable, Codable {
    package var entry: CatalogEntry
    /// `<root>/<repo>/<revision>/<variant>`.
    package var directory: String

    package var id: String { entry.id }
    /// Absolute paths of the entry's files, in entry order.
    package var filePaths: [String] { entry.files.map { directory + "/" + $0.name } }

    /// Absolute path of one file of the model, by its name in the entry.
    package func path(of name: String) -> String? {
        entry.files.contains { $0.name == name } ? directory + "/" + name : nil
    }

    /// The first file with this suffix (e.g. `.gguf`), for single-weights-file models.
    package func firstPath(withSuffix suffix: String) -> String? {
        entry.files.first { $0.name.hasSuffix(suffix) }.map { directory + "/" + $0.name }
    }
}
