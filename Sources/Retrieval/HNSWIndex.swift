import CKernels
import EngineSupport
import Foundation

/// Parameters of the HNSW graph.
package struct HNSWParameters: Sendable, Equatable {
    /// Links per node on the upper layers (layer 0 keeps twice as many).
    package var m = 16
    /// Candidate list size while inserting: higher builds a better graph, slower.
    package var efConstruction = 100
    /// Candidate list size while searching (at least k is used): higher is more exact, slower.
    package var efSearch = 96
    /// Seed of the level draw, so a build is reproducible.
    package var seed: UInt64 = 0x9E37_79B9_7F4A_7C15

    package init() {}
}

/// Hierarchical navigable small world graph over the rows of a `VectorMatrix`, for approximate
/// maximum-inner-product search on unit vectors (so inner product = cosine).
/// Port of the algorithm of Malkov & Yashunin, "Efficient and robust approximate nearest
/// neighbor search using Hierarchical Navigable Small World graphs" (2016/2018): exponentially
/// rarer upper layers, greedy descent, beam search of width ef on layer 0, and the neighbour
/// selection heuristic (Algorithm 4) that keeps a link only when it is closer to the new node
/// than to every link already kept.
package struct HNSWIndex {
    let parameters: HNSWParameters
    let dimension: Int
    /// links[level][node]: neighbour rows; nodes above their top level have none.
    private var links: [[[Int32]]] = [[]]
    private var levels: [Int8] = []
    private var entry: Int32 = -1
    private var rng: SplitMix64
    private var visited = VisitedSet()

    package init(dimension: Int, parameters: HNSWParameters) {
        self.dimension = dimension
        self.parameters = parameters
        self.rng = SplitMix64(seed: parameters.seed)
    }

    var count: Int { levels.count }

    /// Inserts row `node` (rows must be inserted in order 0, 1, 2, …).
    package mutating func insert(_ node: Int, matrix: VectorMatrix) {
        precondition(node == levels.count, "HNSW rows are inserted in order")
        let m = parameters.m
        // Level ~ floor(-ln(U) · mL) with mL = 1/ln(m).
        let u = max(Double(rng.next() >> 11) / Double(1 << 53), 1e-300)
        let level = min(Int(-log(u) / log(Double(m))), 16)
        levels.append(Int8(level))
        // A new top layer starts with an (empty) entry for every earlier node.
        while links.count <= level { links.append([[Int32]](repeating: [], count: node)) }
        for l in 0..<links.count { links[l].append([]) }
        guard entry >= 0 else {
            entry = Int32(node)
            return
        }
        let query = Array(matrix.row(node))
        var current = entry
        let top = Int(levels[Int(entry)])
        var l = top
        while l > level {
            current = greedy(query, from: current, level: l, matrix: matrix)
            l -= 1
        }
        var entries = [current]
        for lc in stride(from: min(top, level), through: 0, by: -1) {
            let found = beam(query, from: entries, ef: parameters.efConstruction, level: lc, matrix: matrix)
            let limit = lc == 0 ? 2 * m : m
            let chosen = select(found, limit: m, matrix: matrix)
            links[lc][node] = chosen.map { Int32($0.row) }
            for neighbour in chosen {
                var list = links[lc][neighbour.row]
                list.append(Int32(node))
                if list.count > limit {
                    let base = Array(matrix.row(neighbour.row))
                    let scored = list.map { (row: Int($0), score: dot(base, Int($0), matrix)) }
                        .sorted { $0.score > $1.score }
                    list = select(scored, limit: limit, matrix: matrix).map { Int32($0.row) }
                }
                links[lc][neighbour.row] = list
            }
            entries = found.map { Int32($0.row) }
        }
        if level > top { entry = Int32(node) }
    }

    /// The `k` rows most similar to `query` that `accept` lets through, best first.
    package mutating func search(_ query: [Float], k: Int, matrix: VectorMatrix, accept: (Int) -> Bool) -> [(row: Int, score: Float)] {
        guard entry >= 0, k > 0 else { return [] }
        var current = entry
        var l = Int(levels[Int(entry)])
        while l > 0 {
            current = greedy(query, from: current, level: l, matrix: matrix)
            l -= 1
        }
        let found = beam(query, from: [current], ef: max(parameters.efSearch, k), level: 0, matrix: matrix)
        return Array(found.filter { accept($0.row) }.prefix(k))
    }

    private func dot(_ q: [Float], _ row: Int, _ matrix: VectorMatrix) -> Float {
        var out: Float = 0
        q.withUnsafeBufferPointer { qp in
            matrix.storage.withUnsafeBufferPointer { s in
                od_dot_rows_f32(qp.baseAddress!, s.baseAddress! + row * dimension, 1, Int64(dimension), &out)
            }
        }
        return out
    }

    /// Greedy walk on one layer towards `query`: move to any better neighbour until none is.
    private func greedy(_ query: [Float], from start: Int32, level: Int, matrix: VectorMatrix) -> Int32 {
        var current = start
        var best = dot(query, Int(start), matrix)
        var improved = true
        while improved {
            improved = false
            for n in links[level][Int(current)] {
                let s = dot(query, Int(n), matrix)
                if s > best {
                    best = s
                    current = n
                    improved = true
                }
            }
        }
        return current
    }

    /// Beam search of width `ef` on one layer; the found rows, best first.
    private mutating func beam(_ query: [Float], from entries: [Int32], ef: Int, level: Int,
                               matrix: VectorMatrix) -> [(row: Int, score: Float)] {
        visited.reset(count: levels.count)
        var candidates = ScoreHeap(maxFirst: true)   // best unexpanded first
        var results = ScoreHeap(maxFirst: false)     // worst kept first
        for e in entries where visited.insert(Int(e)) {
            let s = dot(query, Int(e), matrix)
            candidates.push(Int(e), s)
            results.push(Int(e), s)
        }
        while results.count > ef { _ = results.pop() }
        while let (node, score) = candidates.pop() {
            if results.count >= ef, let worst = results.top, score < worst.score { break }
            for n in links[level][node] where visited.insert(Int(n)) {
                let s = dot(query, Int(n), matrix)
                if results.count < ef || s > results.top!.score {
                    candidates.push(Int(n), s)
                    results.push(Int(n), s)
                    if results.count > ef { _ = results.pop() }
                }
            }
        }
        var out: [(row: Int, score: Float)] = []
        while let (row, score) = results.pop() { out.append((row, score)) }
        return out.reversed()
    }

    /// Algorithm 4 without extension: walk candidates best first, keep one only if it is more
    /// similar to the query than to every kept link, so links spread in all directions.
    private func select(_ candidates: [(row: Int, score: Float)], limit: Int, matrix: VectorMatrix) -> [(row: Int, score: Float)] {
        var kept: [(row: Int, score: Float)] = []
        for c in candidates {
            if kept.count >= limit { break }
            let v = Array(matrix.row(c.row))
            if kept.allSatisfy({ dot(v, $0.row, matrix) < c.score }) { kept.append(c) }
        }
        return kept
    }
}

/// A binary heap of (row, score), best or worst score on top.
struct ScoreHeap {
    private var items: [(row: Int, score: Float)] = []
    let maxFirst: Bool

    init(maxFirst: Bool) { self.maxFirst = maxFirst }

    var count: Int { items.count }
    var top: (row: Int, score: Float)? { items.first }

    private func above(_ a: Float, _ b: Float) -> Bool { maxFirst ? a > b : a < b }

    mutating func push(_ row: Int, _ score: Float) {
        items.append((row, score))
        var i = items.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            guard above(items[i].score, items[parent].score) else { break }
            items.swapAt(i, parent)
            i = parent
        }
    }

    mutating func pop() -> (Int, Float)? {
        guard let first = items.first else { return nil }
        let last = items.removeLast()
        if !items.isEmpty {
            items[0] = last
            var i = 0
            while true {
                let l = 2 * i + 1, r = l + 1
                var best = i
                if l < items.count && above(items[l].score, items[best].score) { best = l }
                if r < items.count && above(items[r].score, items[best].score) { best = r }
                if best == i { break }
                items.swapAt(i, best)
                i = best
            }
        }
        return (first.row, first.score)
    }
}

/// Visited marks cleared in O(1) by bumping an epoch.
struct VisitedSet {
    private var marks: [UInt32] = []
    private var epoch: UInt32 = 0

    mutating func reset(count: Int) {
        if marks.count < count { marks += [UInt32](repeating: 0, count: count - marks.count) }
        epoch &+= 1
        if epoch == 0 {
            for i in marks.indices { marks[i] = 0 }
            epoch = 1
        }
    }

    /// Marks `i`; false when it was already marked.
    mutating func insert(_ i: Int) -> Bool {
        if marks[i] == epoch { return false }
        marks[i] = epoch
        return true
    }
}
