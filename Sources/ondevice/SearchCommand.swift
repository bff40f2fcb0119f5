import Foundation
import Retrieval

/// `ondevice search QUERY`: the best chunks of the index for a query.
enum SearchCommand {
    static func run(_ args: ArraySlice<String>) async throws {
        let a = try Arguments(args, options: IndexCommand.valued.union(["k"]), flags: ["lexical", "json"])
        guard a.positionals.count == 1 else {
            throw a.positionals.isEmpty ? CLIError.missingArgument("QUERY") : CLIError.io("expected one QUERY argument (quote it)")
        }
        let k = try a.int("k") ?? 5
        guard k >= 1 else { throw CLIError.invalidValue(option: "--k", value: String(k), expected: "at least 1") }
        let index = try IndexCommand.open(a, readOnly: true)
        await index.use(try await EmbeddingModels.forIndex(a, index: index))
        let query = readTextArgument(a.positionals[0])
        let start = Date()
        let results = a.has("lexical") ? try await index.lexicalSearch(query, k: k) : try await index.search(query, k: k)
        let seconds = Date().timeIntervalSince(start)
        if a.has("json") {
            try printJSON([
                "query": query, "mode": results.capability.isSemantic ? "semantic" : "lexical",
                "method": results.method.rawValue, "backend": backendJSON(results.capability),
                "results": results.hits.map { hit -> [String: Any] in
                    ["chunk": hit.chunk.description, "document": hit.documentId, "ordinal": hit.chunk.ordinal,
                     "score": Double(hit.score), "text": hit.text, "metadata": hit.metadata]
                },
                "seconds": seconds,
            ])
            return
        }
        print("\(results.capability), \(results.method.rawValue), \(String(format: "%.1f", seconds * 1000)) ms")
        for (i, hit) in results.hits.enumerated() {
            let snippet = hit.text.replacingOccurrences(of: "\n", with: " ").prefix(160)
            print(String(format: "%2d. %.4f  %@\n    %@", i + 1, hit.score, hit.chunk.description, String(snippet)))
        }
        if results.hits.isEmpty { print("no results (\(await index.documentCount) documents indexed)") }
    }

    static func backendJSON(_ capability: SearchCapability) -> Any {
        switch capability {
        case .semantic(let id):
            ["model": id.modelId, "revision": id.revision, "preprocessing": id.preprocessing, "dimension": id.dimension]
        case .lexical(let reason):
            ["lexical": reason]
        }
    }
}
