/// Paths of the store's layout under its root.
package struct StoreLayout: Sendable, Equatable {
    package let root: String

    package init(root: String) { self.root = root }

    /// `<root>/<repo>/<revision>/<variant>`: the installed model, whole or absent.
    package func modelDirectory(_ entry: CatalogEntry) -> String { "\(root)/\(entry.repo)/\(entry.revision)/\(entry.variant)" }
    /// Where `.partial` files grow and verified files wait until the whole model moves into place.
    package func stagingDirectory(_ entry: CatalogEntry) -> String { "\(root)/.staging/\(entry.repo)/\(entry.revision)/\(entry.variant)" }
    /// One lock file per model directory, so pulls of the same model exclude each other.
    package func lockPath(_ entry: CatalogEntry) -> String {
        "\(root)/.locks/\(entry.repo.replacingOccurrences(of: "/", with: "--"))--\(entry.revision)--\(entry.variant).lock"
    }
    /// Last-used time and the validation cache of one model.
    package func recordPath(_ entry: CatalogEntry) -> String { "\(root)/.meta/\(entry.repo)/\(entry.revision)/\(entry.variant).json" }
    /// Custom models registered from Hugging Face, URLs or imports.
    package var registryPath: String { "\(root)/.meta/registry.json" }
    package var registryLockPath: String { "\(root)/.locks/registry.lock" }
    /// Old copies are renamed here before removal so a model disappears in one step.
    package var trashDirectory: String { "\(root)/.trash" }
}
