import CLISupport
import Foundation
import OnDevice

/// `ondevice search QUERY`: the best passages of the document library for a query.
enum SearchCommand {
    static func run(_ args: ArraySlice<String>) async throws {
        let a = try Arguments(args, options: IndexCommand.valued.union(["k"]), flags: ["lexical", "json"])
        guard a.positionals.count == 1 else {
            throw a.positionals.isEmpty ? CLIError.missingArgument("QUERY") : CLIError.io("expected one QUERY argument (quote it)")
        }
        let k = try a.int("k") ?? 5
        guard k >= 1 else { throw CLIError.invalidValue(option: "--k", value: String(k), expected: "at least 1") }
        let library = try await IndexCommand.open(a, readOnly: true)
        let query = readTextArgument(a.positionals[0])
        let start = Date()
        let results = try await library.search(query, count: k)
        let seconds = Date().timeIntervalSince(start)
        if a.has("json") {
            try printJSON([
                "query": query, "mode": method(results.method).mode, "method": method(results.method).name,
                "backend": backendJSON(results.method),
                "results": results.passages.map { hit -> [String: Any] in
                    ["chunk": "\(hit.documentId)#\(hit.ordinal)", "document": hit.documentId, "ordinal": hit.ordinal,
                     "score": Double(hit.score), "text": hit.text, "metadata": hit.metadata]
                },
                "seconds": seconds,
            ])
            return
        }
        print("\(results.method), \(String(format: "%.1f", seconds * 1000)) ms")
        for (i, hit) in results.passages.enumerated() {
            let snippet = hit.text.replacingOccurrences(of: "\n", with: " ").prefix(160)
            print(String(format: "%2d. %.4f  %@#%ld\n    %@", i + 1, hit.score, hit.documentId, hit.ordinal, String(snippet)))
        }
        if results.passages.isEmpty { print("no results (\(await library.documentCount) documents indexed)") }
    }

    /// The mode (semantic, lexical) and the ranking method (exact, approximate, bm25).
    static func method(_ method: LibrarySearchMethod) -> (mode: String, name: String) {
        switch method {
        case .semantic(_, _, _, _, let approximate): ("semantic", approximate ? "approximate" : "exact")
        case .lexical: ("lexical", "bm25")
        }
    }

    static func backendJSON(_ method: LibrarySearchMethod) -> Any {
        switch method {
        case let .semantic(model, revision, preprocessing, dimension, _):
            ["model": model, "revision": revision, "preprocessing": preprocessing, "dimension": dimension]
        case .lexical(let reason):
            ["lexical": reason]
        }
    }
}
