import CLISupport
import Foundation
import OnDevice

/// `ondevice ask QUESTION`: an answer grounded in the document library, streamed, with its
/// citations, through the public API (`DocumentLibrary.ask`).
enum AskCommand {
    static func run(_ args: ArraySlice<String>) async throws {
        let a = try Arguments(args, options: IndexCommand.valued.union(["k", "llm", "max-tokens", "context"]), flags: ["lexical", "json"])
        guard a.positionals.count == 1 else {
            throw a.positionals.isEmpty ? CLIError.missingArgument("QUESTION") : CLIError.io("expected one QUESTION argument (quote it)")
        }
        let library = try await IndexCommand.open(a, readOnly: true, contextLength: try a.int("context") ?? 2048)
        var options = AskOptions()
        options.passages = try a.int("k") ?? options.passages
        options.text.maxTokens = try a.int("max-tokens") ?? options.text.maxTokens
        options.model = a.string("llm") ?? "smollm2-135m-instruct-q4_1"
        for try await event in library.ask(readTextArgument(a.positionals[0]), options: options) {
            switch event {
            case let .retrieved(citations, method):
                if !a.has("json") && citations.isEmpty { IndexCommand.note("no passages found (\(method))") }
            case .partial(let text):
                if !a.has("json") { writeOut(text) }
            case .finished(let answer):
                if a.has("json") {
                    try printJSON([
                        "answer": answer.text, "mode": SearchCommand.method(answer.method).mode,
                        "citations": answer.citations.map { c -> [String: Any] in
                            ["number": c.number, "chunk": "\(c.passage.documentId)#\(c.passage.ordinal)", "score": Double(c.passage.score),
                             "text": c.passage.text]
                        },
                        "metrics": answer.result.metrics.json,
                    ])
                } else {
                    writeOut("\n\nSources (\(answer.method)):\n")
                    for c in answer.citations {
                        print(String(format: "[%d] %@#%ld  (score %.4f)", c.number, c.passage.documentId, c.passage.ordinal, c.passage.score))
                    }
                }
            }
        }
    }
}
