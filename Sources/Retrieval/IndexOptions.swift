/// Tunables of a `DocumentIndex`.
package struct IndexOptions: Sendable, Equatable {
    package var chunking = ChunkingOptions()
    /// From this many vectors on, semantic search uses the HNSW graph instead of the exact scan.
    /// The graph is built in memory on the first such search (tens of seconds at 100k vectors)
    /// and kept up to date after that, so it pays off in long-lived processes only.
    package var approximateThreshold = 20_000
    package var hnsw = HNSWParameters()
    /// Threads of the exact scan (nil: the embedder's, else the machine's cores).
    package var threads: Int?
    /// Compact when the journal is at least this many times its live size (and over 1 MiB).
    package var compactionRatio = 2.0

    package init() {}
}
