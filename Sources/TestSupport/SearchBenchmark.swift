import EngineSupport
import Retrieval
import Foundation

/// Search latency and ANN recall on synthetic embeddings, for `Benchmarks embed` and the HNSW tests.
///
/// The vectors are a mixture of `clusters` Gaussian blobs on the unit sphere (what sentence
/// embeddings of a mixed corpus look like far more than uniform noise does, and a harder case
/// for HNSW than clean clusters); queries come from the same mixture but are not in the set.
package struct SearchBenchmark {
    package var vectors: Int
    package var dimension = 384
    package var clusters = 1000
    /// Spread of a vector around its cluster centre (per-dimension standard deviation × √d).
    package var spread: Float = 0.8
    package var queries = 100
    package var k = 10
    package var threads = 1
    package var hnsw = HNSWParameters()
    package var seed: UInt64 = 42

    package init(vectors: Int) { self.vectors = vectors }

    package struct Report: Sendable, Equatable {
        package var vectors: Int
        package var dimension: Int
        /// Median and 95th percentile of one exact top-k query, seconds.
        package var exactMedian: Double
        package var exactP95: Double
        package var hnswBuildSeconds: Double
        package var hnswMedian: Double
        package var hnswP95: Double
        /// Mean fraction of the exact top-k that HNSW returned.
        package var recallAtK: Double
    }

    package func run() -> Report {
        var rng = SplitMix64(seed: seed)
        func gaussian() -> Float {
            // Box–Muller.
            let u1 = max(Double(rng.next() >> 11) / Double(1 << 53), 1e-300), u2 = Double(rng.next() >> 11) / Double(1 << 53)
            return Float((-2 * log(u1)).squareRoot() * cos(2 * .pi * u2))
        }
        func unit(_ v: [Float]) -> [Float] {
            var v = v
            Embedder.normalize(&v)
            return v
        }
        let centres = (0..<clusters).map { _ in unit((0..<dimension).map { _ in gaussian() }) }
        let scale = spread / Float(dimension).squareRoot()
        func sample() -> [Float] {
            let c = centres[Int(rng.next() % UInt64(clusters))]
            return unit(c.map { $0 + scale * gaussian() })
        }
        var matrix = VectorMatrix(dimension: dimension)
        matrix.reserve(vectors)
        for i in 0..<vectors { matrix.append(ChunkKey(documentId: "v", ordinal: i), sample()[...]) }
        let probes = (0..<queries).map { _ in sample() }

        var exactTimes: [Double] = [], truth: [[Int]] = []
        for q in probes {
            let t = Date()
            let found = matrix.exactTopK(q, k: k, threads: threads)
            exactTimes.append(Date().timeIntervalSince(t))
            truth.append(found.map(\.row))
        }
        let buildStart = Date()
        var graph = HNSWIndex(dimension: dimension, parameters: hnsw)
        for row in 0..<vectors { graph.insert(row, matrix: matrix) }
        let build = Date().timeIntervalSince(buildStart)
        var hnswTimes: [Double] = [], recall = 0.0
        for (q, exact) in zip(probes, truth) {
            let t = Date()
            let found = graph.search(q, k: k, matrix: matrix) { _ in true }
            hnswTimes.append(Date().timeIntervalSince(t))
            recall += Double(Set(found.map(\.row)).intersection(exact).count) / Double(max(exact.count, 1))
        }
        func percentile(_ xs: [Double], _ p: Double) -> Double {
            let s = xs.sorted()
            return s.isEmpty ? 0 : s[min(s.count - 1, Int(Double(s.count) * p))]
        }
        return Report(vectors: vectors, dimension: dimension,
                      exactMedian: percentile(exactTimes, 0.5), exactP95: percentile(exactTimes, 0.95),
                      hnswBuildSeconds: build, hnswMedian: percentile(hnswTimes, 0.5), hnswP95: percentile(hnswTimes, 0.95),
                      recallAtK: recall / Double(max(probes.count, 1)))
    }
}
