import CKernels
import Dispatch

/// Where a chunk lives: its document and its place in that document. Its text form,
/// `document#ordinal`, is the citation id RAG answers carry.
package struct ChunkKey: Sendable, Hashable, Comparable, CustomStringConvertible {
    package var documentId: String
    package var ordinal: Int

    package init(documentId: String, ordinal: Int) {
        self.documentId = documentId
        self.ordinal = ordinal
    }

    package var description: String { "\(documentId)#\(ordinal)" }

    package static func < (a: ChunkKey, b: ChunkKey) -> Bool {
        a.documentId != b.documentId ? a.documentId < b.documentId : a.ordinal < b.ordinal
    }
}

/// Unit vectors in one contiguous row-major block, with the chunk each row belongs to: the
/// exact-search scan reads it front to back with the SIMD dot kernel.
package struct VectorMatrix {
    let dimension: Int
    // (count, dimension)
    private(set) var storage: [Float] = []
    private(set) var keys: [ChunkKey] = []

    package init(dimension: Int) { self.dimension = dimension }

    var count: Int { keys.count }

    package mutating func reserve(_ rows: Int) {
        storage.reserveCapacity(rows * dimension)
        keys.reserveCapacity(rows)
    }

    package mutating func append(_ key: ChunkKey, _ vector: ArraySlice<Float>) {
        precondition(vector.count == dimension, "vector length \(vector.count) ≠ \(dimension)")
        storage.append(contentsOf: vector)
        keys.append(key)
    }

    /// Row `i`. (dimension)
    func row(_ i: Int) -> ArraySlice<Float> { storage[(i * dimension)..<((i + 1) * dimension)] }

    /// The dot product of `query` with every row, split over `threads` workers when the matrix
    /// is large enough for the dispatch to pay.
    func scores(_ query: [Float], threads: Int) -> [Float] {
        precondition(query.count == dimension)
        var out = [Float](repeating: 0, count: count)
        let n = count, d = dimension
        guard n > 0 else { return out }
        let parts = min(max(1, threads), max(1, n * d / (1 << 18)))
        storage.withUnsafeBufferPointer { rows in
            query.withUnsafeBufferPointer { q in
                out.withUnsafeMutableBufferPointer { o in
                    nonisolated(unsafe) let (rp, qp, op) = (rows.baseAddress!, q.baseAddress!, o.baseAddress!)
                    if parts == 1 {
                        od_dot_rows_f32(qp, rp, Int64(n), Int64(d), op)
                        return
                    }
                    DispatchQueue.concurrentPerform(iterations: parts) { p in
                        let begin = n * p / parts, end = n * (p + 1) / parts
                        od_dot_rows_f32(qp, rp + begin * d, Int64(end - begin), Int64(d), op + begin)
                    }
                }
            }
        }
        return out
    }

    /// The `k` best rows by dot product with `query`, best first (ties by chunk key).
    package func exactTopK(_ query: [Float], k: Int, threads: Int) -> [(row: Int, score: Float)] {
        TopK.select(scores(query, threads: threads), k: k) { keys[$0] }
    }
}

/// Selection of the k highest scores without sorting everything.
enum TopK {
    /// Indices of the `k` highest `scores`, best first; equal scores order by `key`.
    static func select<Key: Comparable>(_ scores: [Float], k: Int, key: (Int) -> Key) -> [(row: Int, score: Float)] {
        guard k > 0, !scores.isEmpty else { return [] }
        // A sorted buffer of the best k so far; most rows fail the first comparison.
        var best: [(row: Int, score: Float)] = []
        best.reserveCapacity(k + 1)
        func better(_ a: (row: Int, score: Float), _ b: (row: Int, score: Float)) -> Bool {
            a.score != b.score ? a.score > b.score : key(a.row) < key(b.row)
        }
        for (i, s) in scores.enumerated() {
            if best.count == k, let last = best.last, !(s > last.score || (s == last.score && key(i) < key(last.row))) { continue }
            let item = (row: i, score: s)
            var lo = 0, hi = best.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if better(best[mid], item) { lo = mid + 1 } else { hi = mid }
            }
            best.insert(item, at: lo)
            if best.count > k { best.removeLast() }
        }
        return best
    }
}
