import Retrieval
import Testing
import TestSupport

/// The approximate index: recall against the exact scan, and the switch-over threshold.
struct HNSWTests {
    @Test func `HNSW recall@10 against the exact scan is high on clustered unit vectors`() {
        var bench = SearchBenchmark(vectors: 4000)
        bench.dimension = 64
        bench.clusters = 100
        bench.queries = 50
        let report = bench.run()
        #expect(report.recallAtK >= 0.9, "recall@10 \(report.recallAtK)")
        #expect(report.vectors == 4000)
    }

    @Test func `past the threshold the index searches the graph, and updates reach it`() async throws {
        let dir = try TemporaryDirectory()
        var options = IndexOptions()
        options.approximateThreshold = 20
        let box = EventBox()
        let index = try DocumentIndex(directory: dir.path, embedder: try TestEmbedders.hashing(), options: options,
                                      onEvent: { box.append($0) })
        let words = TestEmbedders.words
        var documents: [IndexDocument] = []
        for i in 0..<60 {
            documents.append(IndexDocument(id: "d\(i)", text: "\(words[i % words.count]) \(words[(i * 7 + 3) % words.count]) \(words[(i * 13 + 5) % words.count])"))
        }
        try await index.add(documents)
        let query = documents[17].text
        let approximate = try await index.search(query, k: 5)
        #expect(approximate.method == .approximate)
        #expect(box.events.contains { if case .approximateIndexBuilt(60, _) = $0 { true } else { false } })
        #expect(approximate.hits.first?.text == query)
        // A replaced document is found under its new text, never its old one.
        try await index.add(id: "d17", text: "quantum qubit computer")
        let after = try await index.search("quantum qubit computer", k: 3)
        #expect(after.method == .approximate)
        #expect(after.hits.first?.chunk == ChunkKey(documentId: "d17", ordinal: 0))
        #expect(try await index.search(query, k: 60).hits.filter { $0.documentId == "d17" }.allSatisfy { $0.text != query })
        try await index.remove(["d3"])
        #expect(try await index.search(documents[3].text, k: 60).hits.allSatisfy { $0.documentId != "d3" })
    }
}
