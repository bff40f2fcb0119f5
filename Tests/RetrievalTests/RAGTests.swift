import Foundation
import Retrieval
import TestSupport
import Testing
import TextGeneration

/// RAG over an index with SmolLM2-135M-Instruct on our engine.
@Suite(.serialized) struct RAGTests {
    static func llm() throws -> LanguageModel {
        let path = try #require(TestModels.path(TestModels.smolLM2), "SmolLM2 not installed: run scripts/setup.sh")
        return try LanguageModel(path: path)
    }

    static func goldenIndex(_ embedder: Embedder) async throws -> (DocumentIndex, TemporaryDirectory) {
        let golden = try Fixtures.json("retrieval.json")
        let documents = try #require(golden["documents"] as? [[String: Any]])
        let dir = try TemporaryDirectory()
        let index = try DocumentIndex(directory: dir.path, embedder: embedder)
        try await index.add(documents.map {
            IndexDocument(id: "doc\(($0["doc_id"] as? Int) ?? -1)", text: $0.string("text"), metadata: ["path": "/notes/doc.txt"])
        })
        return (index, dir)
    }

    @Test func `ask streams an answer grounded in the retrieved chunks and cites them`() async throws {
        let (index, dir) = try await Self.goldenIndex(try Fixtures.miniLM.get())
        defer { dir.cleanup() }
        var options = RAGOptions()
        options.k = 3
        options.generation.maxTokens = 48
        let rag = try RAGSession.open(index: index, llm: try Self.llm(), options: options)
        var events: [RAGEvent] = []
        for try await e in rag.ask("Which is the tallest mountain on Earth?") { events.append(e) }
        guard case .retrieved(let citations, let capability)? = events.first else {
            Issue.record("the first event is not the citations: \(events.first.map { "\($0)" } ?? "none")")
            return
        }
        #expect(capability.isSemantic)
        #expect(citations.map(\.number) == [1, 2, 3])
        #expect(citations.first?.chunk.documentId == "doc1", "Everest is the best passage")
        #expect(zip(citations, citations.dropFirst()).allSatisfy { $0.score >= $1.score })
        guard case .finished(let answer)? = events.last else {
            Issue.record("the stream did not end with .finished")
            return
        }
        #expect(events.filter { if case .finished = $0 { true } else { false } }.count == 1)
        let streamed = events.compactMap { if case .token(let t) = $0 { t } else { nil } }.joined()
        #expect(streamed == answer.text)
        #expect(answer.citations == citations)
        #expect(answer.metrics.completionTokens > 0)
        #expect(answer.text.localizedCaseInsensitiveContains("everest"), "answer: \(answer.text)")
    }

    @Test func `the prompt numbers the passages inside the chat template`() async throws {
        let (index, dir) = try await Self.goldenIndex(try TestEmbedders.hashing())
        defer { dir.cleanup() }
        let rag = try RAGSession.open(index: index, llm: try Self.llm())
        let citation = Citation(number: 1, chunk: ChunkKey(documentId: "x", ordinal: 0), score: 0.5,
                                text: "Passage text.", metadata: ["path": "/a/b/notes.md"])
        let prompt = try rag.prompt("What?", [citation]).text
        #expect(prompt.contains("<|im_start|>system\nYou answer questions using only the numbered context passages."))
        #expect(prompt.contains("[1] (notes.md) Passage text.\n\nQuestion: What?<|im_end|>"))
        #expect(prompt.hasSuffix("<|im_start|>assistant\n"))
    }

    @Test func `cancelling the consumer stops the answer`() async throws {
        let (index, dir) = try await Self.goldenIndex(try TestEmbedders.hashing())
        defer { dir.cleanup() }
        var options = RAGOptions()
        options.generation.maxTokens = 400
        options.generation.stop = []
        let rag = try RAGSession.open(index: index, llm: try Self.llm(), options: options)
        let consumer = Task {
            var tokens = 0, finished = false
            for try await e in rag.ask("Tell me everything about every passage, at length.") {
                if case .token = e { tokens += 1 }
                if case .finished = e { finished = true }
                if tokens == 3 { withUnsafeCurrentTask { $0?.cancel() } }
            }
            return (tokens, finished)
        }
        let (tokens, finished) = try await consumer.value
        // Exact, however late the consumer was scheduled: nothing after the cancelling event.
        // That the decode loop itself stops is GeneratorTests' concern.
        #expect(!finished, "a cancelled answer never reports finished")
        #expect(tokens == 3, "no token after cancellation (\(tokens) tokens)")
    }
}
