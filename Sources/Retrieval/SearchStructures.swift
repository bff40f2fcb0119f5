/// The in-memory search structures derived from `IndexContents`: the vector matrix (and its
/// HNSW graph once large enough) and the BM25 index. Kept in step incrementally: documents
/// added since the last sync are appended, replaced or removed ones become dead rows, and a
/// full rebuild happens only when the backend changes or a quarter of the rows are dead.
struct SearchStructures {
    private(set) var matrix: VectorMatrix?
    private(set) var hnsw: HNSWIndex?
    /// live[row]: the row's document version is still current.
    private var live: [Bool] = []
    private var deadRows = 0
    /// Rows and version of each document in the matrix.
    private var placed: [String: (rows: Range<Int>, version: Int)] = [:]
    private var stamp: UInt64 = 0
    private var vectorGeneration = -1
    private(set) var lexical = LexicalIndex()
    private var lexicalGeneration = -1

    var liveVectorCount: Int { (matrix?.count ?? 0) - deadRows }

    func isLive(_ row: Int) -> Bool { live[row] }

    /// Brings the matrix up to date with `contents`.
    mutating func syncVectors(_ contents: IndexContents) {
        guard contents.generation != vectorGeneration else { return }
        vectorGeneration = contents.generation
        let dimension = contents.backend?.dimension ?? 0
        if contents.backendStamp != stamp || matrix?.dimension != dimension {
            matrix = dimension > 0 ? VectorMatrix(dimension: dimension) : nil
            hnsw = nil
            live = []
            deadRows = 0
            placed = [:]
            stamp = contents.backendStamp
        }
        guard matrix != nil else { return }
        for (id, entry) in placed where contents.versions[id] != entry.version || contents.documents[id]?.stamp != stamp {
            for row in entry.rows where live[row] {
                live[row] = false
                deadRows += 1
            }
            placed[id] = nil
        }
        if deadRows * 4 > max(matrix!.count, 1) {
            // Too many dead rows: start over from the live documents.
            matrix = VectorMatrix(dimension: dimension)
            hnsw = nil
            live = []
            deadRows = 0
            placed = [:]
        }
        let fresh = contents.documents.values.filter { $0.stamp == stamp && stamp != 0 && placed[$0.id] == nil }
            .sorted { $0.id < $1.id }
        for d in fresh {
            let first = matrix!.count
            for i in d.chunks.indices {
                matrix!.append(ChunkKey(documentId: d.id, ordinal: i), d.vectors[(i * dimension)..<((i + 1) * dimension)])
                live.append(true)
            }
            placed[d.id] = (first..<matrix!.count, contents.versions[d.id] ?? 0)
        }
        if hnsw != nil { extendGraph() }
    }

    /// Builds the HNSW graph over every row (or extends it with rows added since).
    mutating func buildGraph(_ parameters: HNSWParameters) {
        guard let matrix else { return }
        if hnsw == nil { hnsw = HNSWIndex(dimension: matrix.dimension, parameters: parameters) }
        extendGraph()
    }

    private mutating func extendGraph() {
        guard let matrix, var graph = hnsw else { return }
        hnsw = nil  // keep the graph uniquely referenced while it grows
        for row in graph.count..<matrix.count { graph.insert(row, matrix: matrix) }
        hnsw = graph
    }

    /// Approximate search; nil when there is no graph.
    mutating func approximate(_ query: [Float], k: Int) -> [(row: Int, score: Float)]? {
        guard let matrix, var graph = hnsw else { return nil }
        hnsw = nil
        defer { hnsw = graph }
        let live = self.live
        return graph.search(query, k: k, matrix: matrix) { live[$0] }
    }

    /// Exact search over the live rows.
    func exact(_ query: [Float], k: Int, threads: Int) -> [(row: Int, score: Float)] {
        guard let matrix else { return [] }
        var scores = matrix.scores(query, threads: threads)
        if deadRows > 0 { for i in scores.indices where !live[i] { scores[i] = -.infinity } }
        return TopK.select(scores, k: min(k, liveVectorCount)) { matrix.keys[$0] }
    }

    /// Rebuilds the BM25 index when the documents changed.
    mutating func syncLexical(_ contents: IndexContents) {
        guard contents.generation != lexicalGeneration else { return }
        lexicalGeneration = contents.generation
        lexical = LexicalIndex()
        for id in contents.documents.keys.sorted() {
            let d = contents.documents[id]!
            for (i, text) in d.chunkTexts.enumerated() { lexical.add(ChunkKey(documentId: id, ordinal: i), text: text) }
        }
    }
}
