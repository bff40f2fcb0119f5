import ModelStore

/// What a model needs in memory before it is loaded. For a decoder: the mapped weights, the KV
/// cache for the context it will run with, and the scratch its forward pass uses.
package struct MemoryEstimate: Sendable, Equatable, Codable {
    package var weightBytes: Int
    package var cacheBytes: Int
    package var scratchBytes: Int

    package init(weightBytes: Int, cacheBytes: Int = 0, scratchBytes: Int = 0) {
        self.weightBytes = weightBytes
        self.cacheBytes = cacheBytes
        self.scratchBytes = scratchBytes
    }

    package var totalBytes: Int { weightBytes + cacheBytes + scratchBytes }
}

/// A model held in memory by the residency cache: an LLM today, speech and embedding models as
/// they arrive. The cache keeps one per model id and drops its reference to unload it; the model
/// must free (unmap, deallocate) everything when the last reference goes.
package protocol ResidentModel: AnyObject, Sendable {
    /// The kind of model this type holds: what a file or folder given by path is loaded as.
    static var kind: ModelKind { get }
    /// Bytes the model holds now, measured rather than estimated (see each type for how).
    var residentBytes: Int { get }
    /// Frees what no running op needs (idle per-session caches), keeping the model loaded.
    /// Called under critical memory pressure on models that are in use.
    func trim()
}

extension ResidentModel {
    package func trim() {}
}

/// Knows how to load one model and what it will cost before loading it. Cheap to build: the
/// estimate reads headers only, and nothing heavy happens until `load()`.
package protocol ResidentModelLoading: Sendable {
    associatedtype Model: ResidentModel
    /// The cache key: the catalog id (or path) of the model.
    var modelId: String { get }
    var kind: ModelKind { get }
    /// Memory the loaded model will take, from headers and configuration only.
    func estimate() throws(RuntimeError) -> MemoryEstimate
    /// Loads the model. Runs outside the residency actor; may take seconds.
    func load() async throws(RuntimeError) -> Model
}
