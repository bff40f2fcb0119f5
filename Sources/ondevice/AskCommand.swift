import Foundation
import Retrieval
import TextGeneration

/// `ondevice ask QUESTION`: an answer grounded in the index, streamed, with its citations.
enum AskCommand {
    static func run(_ args: ArraySlice<String>) async throws {
        let a = try Arguments(args, options: IndexCommand.valued.union(["k", "llm", "max-tokens", "context"]), flags: ["lexical", "json"])
        guard a.positionals.count == 1 else {
            throw a.positionals.isEmpty ? CLIError.missingArgument("QUESTION") : CLIError.io("expected one QUESTION argument (quote it)")
        }
        let index = try EmbeddingModels.openIndex(a, readOnly: true)
        await index.use(try await EmbeddingModels.forIndex(a, index: index))
        let llm = try LanguageModel(path: try await ModelLocator.path(for: a.string("llm") ?? "smollm2-135m-instruct-q4_1"))
        var options = RAGOptions()
        options.k = try a.int("k") ?? options.k
        options.generation.maxTokens = try a.int("max-tokens") ?? options.generation.maxTokens
        options.contextLength = try a.int("context") ?? options.contextLength
        options.threads = try a.int("threads")
        let rag = try RAGSession.open(index: index, llm: llm, options: options)
        for try await event in rag.ask(readTextArgument(a.positionals[0])) {
            switch event {
            case .retrieved(let citations, let capability):
                if !a.has("json") && citations.isEmpty { EmbeddingModels.note("no passages found (\(capability))") }
            case .token(let text):
                if !a.has("json") { writeOut(text) }
            case .finished(let answer):
                if a.has("json") {
                    try printJSON([
                        "answer": answer.text, "mode": answer.capability.isSemantic ? "semantic" : "lexical",
                        "citations": answer.citations.map { c -> [String: Any] in
                            ["number": c.number, "chunk": c.chunk.description, "score": Double(c.score), "text": c.text]
                        },
                        "metrics": answer.metrics.json,
                    ])
                } else {
                    writeOut("\n\nSources (\(answer.capability)):\n")
                    for c in answer.citations {
                        print(String(format: "[%d] %@  (score %.4f)", c.number, c.chunk.description, c.score))
                    }
                }
            }
        }
    }
}
