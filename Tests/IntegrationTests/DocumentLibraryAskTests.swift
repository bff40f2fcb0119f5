import Foundation
import OnDevice
import Testing
import TestSupport

/// `DocumentLibrary.ask` on MiniLM and SmolLM2-135M-Instruct through the public API: the golden
/// retrieval documents, the citations first, the answer streamed through the chat core, and a
/// cancelled answer that never reports finishing.
@Suite(.serialized) struct DocumentLibraryAskTests {
    static func library(_ dir: TemporaryDirectory) async throws -> (OnDeviceAI, DocumentLibrary) {
        let golden = try GoldenFile.object(GoldenFiles.root.appendingPathComponent("embeddings/retrieval.json"))
        let documents = try #require(golden["documents"] as? [[String: Any]])
        var c = OnDeviceAI.Configuration()
        c.threads = 2
        c.textModel = "smollm2-135m-instruct-q4_1"
        c.contextLength = 2048
        let ai = OnDeviceAI(configuration: c)
        let library = try await ai.documentLibrary(at: URL(fileURLWithPath: dir.path))
        try await library.add(documents.map {
            LibraryDocument(id: "doc\(($0["doc_id"] as? Int) ?? -1)", text: $0.string("text"), metadata: ["path": "/notes/doc.txt"])
        })
        return (ai, library)
    }

    @Test func `ask streams an answer grounded in the retrieved passages and cites them`() async throws {
        let dir = try TemporaryDirectory()
        let (ai, library) = try await Self.library(dir)
        var options = AskOptions()
        options.passages = 3
        options.text.maxTokens = 48
        var events: [AnswerEvent] = []
        for try await event in library.ask("Which is the tallest mountain on Earth?", options: options) { events.append(event) }
        guard case let .retrieved(citations, method)? = events.first else {
            Issue.record("the first event is not the citations: \(events.first.map { "\($0)" } ?? "none")")
            return
        }
        guard case .semantic = method else { Issue.record("\(method)"); return }
        #expect(citations.map(\.number) == [1, 2, 3])
        #expect(citations.first?.passage.documentId == "doc1", "Everest is the best passage")
        #expect(zip(citations, citations.dropFirst()).allSatisfy { $0.passage.score >= $1.passage.score })
        guard case .finished(let answer)? = events.last else {
            Issue.record("the stream did not end with .finished")
            return
        }
        #expect(events.filter { if case .finished = $0 { true } else { false } }.count == 1)
        let streamed = events.compactMap { if case .partial(let t) = $0 { t } else { nil } }.joined()
        #expect(streamed == answer.text)
        #expect(answer.citations == citations)
        #expect(answer.result.metrics.completionTokens > 0 && answer.result.metrics.completionTokens <= 48)
        #expect(answer.text.localizedCaseInsensitiveContains("everest"), "answer: \(answer.text)")
        // The passages went in as the user's text, numbered, inside the model's chat template.
        let prompt = try await ai.textModel.tokenize("[1] (doc.txt) Mount Everest")
        #expect(answer.result.promptTokenIDs.count > 3 * prompt.count)
        #expect(try await ai.activeLeases() == 0)
    }

    @Test func `a prompt too long for the context drops the lowest-ranked passages`() async throws {
        let dir = try TemporaryDirectory()
        let (_, library) = try await Self.library(dir)
        var options = AskOptions()
        options.passages = 6
        options.text.maxTokens = 2048 - 150  // room for the instruction, the question and about one passage
        options.text.temperature = 0
        var first: [AnswerCitation]?
        for try await event in library.ask("Which is the tallest mountain on Earth?", options: options) {
            if case .retrieved(let citations, _) = event { first = citations }
            break
        }
        let kept = try #require(first)
        #expect(kept.count < 6, "\(kept.count) passages kept")
        #expect(kept.first?.passage.documentId == "doc1")
    }

    @Test func `cancelling the consumer stops the answer`() async throws {
        let dir = try TemporaryDirectory()
        let (ai, library) = try await Self.library(dir)
        var options = AskOptions()
        options.text.maxTokens = 400
        let consumer = Task {
            var pieces = 0, finished = false
            for try await event in library.ask("Tell me everything about every passage, at length.", options: options) {
                if case .partial = event { pieces += 1 }
                if case .finished = event { finished = true }
                if pieces == 3 {
                    // Fall behind first, so the producer has buffered more text than was read.
                    try? await Task.sleep(for: .seconds(1))
                    withUnsafeCurrentTask { $0?.cancel() }
                }
            }
            return (pieces, finished)
        }
        let (pieces, finished) = try await consumer.value
        #expect(!finished, "a cancelled answer never reports finished")
        #expect(pieces == 3, "no text after cancellation, however much was buffered (\(pieces) pieces)")
        var waited = 0
        while try await ai.activeLeases() > 0 && waited < 200 {
            try await Task.sleep(for: .milliseconds(50))
            waited += 1
        }
        #expect(try await ai.activeLeases() == 0)
    }
}
