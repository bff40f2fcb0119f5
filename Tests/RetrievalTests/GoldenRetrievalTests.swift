import Foundation
import Retrieval
import Testing
import TestSupport

/// Top-3 retrieval over the golden set (../shared/golden/embeddings/retrieval.json) through a
/// real `DocumentIndex`, for both models. Where the reference's ranks 3 and 4 are a near-tie
/// (gap < 0.005, listed in the golden README), an equally correct engine may swap them.
@Suite(.serialized) struct GoldenRetrievalTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        var testDescription: String { name }
    }

    static let cases = [Case(name: "minilm"), Case(name: "nomic")]

    @Test(arguments: cases)
    func `top 3 of every query equals the reference`(_ c: Case) async throws {
        let golden = try Fixtures.json("retrieval.json")
        let model = try #require(golden[c.name] as? [String: Any])
        let documents = try #require(golden["documents"] as? [[String: Any]])
        let queries = try #require(golden["queries"] as? [[String: Any]])
        let results = try #require(model["results"] as? [[String: Any]])
        let matrix = try #require(model["scores_q_by_d"] as? [[NSNumber]])
        try #require(!queries.isEmpty && !documents.isEmpty && results.count == queries.count, "\(c.name): no golden queries")
        let embedder = try (c.name == "minilm" ? Fixtures.miniLM : Fixtures.nomic).get()

        let directory = try TemporaryDirectory()
        let index = try DocumentIndex(directory: directory.path, embedder: embedder)
        try await index.add(documents.map {
            IndexDocument(id: String(($0["doc_id"] as? Int) ?? -1), text: $0.string("text"))
        })
        #expect(await index.chunkCount == documents.count, "every golden document is one chunk")

        var worstScore: Float = 0
        for (q, query) in queries.enumerated() {
            let found = try await index.search(query.string("text"), k: documents.count)
            #expect(found.method == .exact)
            #expect(found.capability == .semantic(embedder.identity))
            let ours = found.hits.map { Int($0.documentId)! }
            let reference = (results[q]["top3"] as? [Int]) ?? []
            let margins = results[q].floats("margins_1v2_2v3_3v4")
            try #require(ours.count >= 3 && reference.count == 3 && margins.count == 3, "\(c.name) query \(q): \(ours.count) hits")
            // Reference ranking of all documents, for the near-tie check.
            let row = matrix[q].map(\.floatValue)
            let referenceOrder = row.indices.sorted { row[$0] > row[$1] }
            for hit in found.hits {
                worstScore = max(worstScore, abs(hit.score - row[Int(hit.documentId)!]))
            }
            for rank in 0..<3 where ours[rank] != reference[rank] {
                // Allowed only inside a near-tie of the reference, with the tied neighbour.
                let tiedWithNext = rank < 3 && margins[rank] < 0.005 && ours[rank] == referenceOrder[rank + 1]
                let tiedWithPrevious = rank > 0 && margins[rank - 1] < 0.005 && ours[rank] == referenceOrder[rank - 1]
                #expect(tiedWithNext || tiedWithPrevious,
                        "\(c.name) query \(q): ours \(Array(ours.prefix(3))), reference \(reference), margins \(margins)")
            }
        }
        // Scores are cosines of vectors that match the references to ≥ 0.999.
        print("[retrieval] \(c.name): worst score difference \(worstScore) over \(queries.count) queries")
        #expect(worstScore < 5e-3, "\(c.name): worst score difference \(worstScore)")
        GoldenRecords.checked(queries.count, in: Self.self)
    }
}
