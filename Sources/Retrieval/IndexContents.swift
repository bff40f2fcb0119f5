/// The index as its journal says it is: documents, and the backend their vectors belong to.
/// A value type that replays records; the actor around it does the I/O and the embedding.
///
/// Invariant: a document's vectors are either absent (stamp 0) or stamped with the current
/// backend. Records that would break it (a backend switch, a put stamped by another backend)
/// drop the stale vectors on apply, so replaying a journal cut anywhere keeps it.
struct IndexContents {
    private(set) var backend: BackendIdentity?
    private(set) var backendStamp: UInt64 = 0
    private(set) var documents: [String: StoredDocument] = [:]
    /// The generation at which each document was last replaced (its chunks or vectors changed).
    private(set) var versions: [String: Int] = [:]
    /// Journal bytes the live records would take again (for the compaction heuristic).
    private(set) var liveBytes = 0
    /// Bumped by every change, so derived search structures know when they are stale.
    private(set) var generation = 0

    mutating func apply(_ record: JournalRecord) {
        generation += 1
        switch record {
        case .backend(let identity):
            backend = identity
            backendStamp = identity.map(BackendStamp.of) ?? 0
            for (id, d) in documents where d.stamp != 0 && !holdsCurrentVectors(d) {
                replace(id, with: Self.withoutVectors(d))
            }
        case .put(var d):
            if d.stamp != 0 && !holdsCurrentVectors(d) { d = Self.withoutVectors(d) }
            replace(d.id, with: d)
        case .remove(let id):
            replace(id, with: nil)
        }
    }

    /// Whether `d`'s vectors belong to the current backend: its stamp, and a dimension that is
    /// the backend's (a journal that pairs the stamp with another dimension is damaged, and its
    /// vectors would be read out of step with the matrix).
    private func holdsCurrentVectors(_ d: StoredDocument) -> Bool {
        d.stamp == backendStamp && d.dimension == backend?.dimension && d.vectors.count == d.chunks.count * d.dimension
    }

    private mutating func replace(_ id: String, with document: StoredDocument?) {
        if let old = documents[id] { liveBytes -= Self.recordBytes(old) }
        documents[id] = document
        versions[id] = document == nil ? nil : generation
        if let document { liveBytes += Self.recordBytes(document) }
    }

    /// Documents whose chunks have no vectors of the current backend, sorted by id.
    var pendingIds: [String] {
        documents.values.filter { $0.stamp != backendStamp || backendStamp == 0 }.map(\.id).sorted()
    }

    /// Whether any document holds vectors (of the current backend, by the invariant).
    var hasVectors: Bool { documents.values.contains { $0.stamp != 0 } }

    var chunkCount: Int { documents.values.reduce(0) { $0 + $1.chunks.count } }

    /// The records that rebuild this state, for compaction.
    var records: [JournalRecord] {
        [.backend(backend)] + documents.keys.sorted().map { .put(documents[$0]!) }
    }

    static func withoutVectors(_ d: StoredDocument) -> StoredDocument {
        var d = d
        d.stamp = 0
        d.vectors = []
        return d
    }

    /// Approximate framed size of a put record.
    static func recordBytes(_ d: StoredDocument) -> Int {
        64 + d.id.utf8.count + d.text.utf8.count + 8 * d.chunks.count + 4 * d.vectors.count
            + d.metadata.reduce(0) { $0 + 8 + $1.key.utf8.count + $1.value.utf8.count }
    }
}

extension StoredDocument {
    /// The text of chunk `i`.
    func chunkText(_ i: Int) -> String {
        let scalars = text.unicodeScalars
        let start = scalars.index(scalars.startIndex, offsetBy: chunks[i].lowerBound)
        let end = scalars.index(start, offsetBy: chunks[i].count)
        return String(scalars[start..<end])
    }

    /// Every chunk's text, walking the scalars once.
    var chunkTexts: [String] {
        let scalars = Array(text.unicodeScalars)
        return chunks.map { range in
            var view = String.UnicodeScalarView()
            view.append(contentsOf: scalars[range])
            return String(view)
        }
    }
}
