import Foundation
import Retrieval
import Testing
import TestSupport

/// The backend-identity rule and the explicit lexical fallback.
struct BackendRuleTests {
    @Test func `a query from another backend is refused, and re-embedding switches the index`() async throws {
        let dir = try TemporaryDirectory()
        let a = try TestEmbedders.hashing(model: "m", revision: "r1", salt: 1)
        let b = try TestEmbedders.hashing(model: "m", revision: "r2", salt: 2)
        #expect(a.identity != b.identity)
        do {
            let index = try DocumentIndex(directory: dir.path, embedder: a)
            try await index.add(DocumentIndexTests.corpus)
        }
        let index = try DocumentIndex(directory: dir.path, embedder: b)
        #expect(await !index.capability.isSemantic, "the capability says vectors must be rebuilt")
        await #expect(throws: RetrievalError.backendMismatch(index: a.identity, query: b.identity)) {
            _ = try await index.search("cat", k: 1)
        }
        await #expect(throws: RetrievalError.backendMismatch(index: a.identity, query: b.identity)) {
            try await index.add(id: "e", text: "new text")
        }
        // A vector made by `a` cannot be passed off as `b`'s, nor the other way round.
        let vector = try a.embed("cat", options: EmbeddingOptions(task: .query)).vector
        await #expect(throws: RetrievalError.backendMismatch(index: a.identity, query: b.identity)) {
            _ = try await index.search(vector: vector, identity: b.identity, k: 1)
        }
        try await index.reembed()
        #expect(await index.backend == b.identity)
        #expect(await index.capability == .semantic(b.identity))
        let found = try await index.search("eiffel tower paris", k: 1)
        #expect(found.capability == .semantic(b.identity))
        #expect(found.hits.first?.documentId == "b")
        // The old backend is now the stranger.
        let old = try DocumentIndex(directory: dir.path, embedder: a, readOnly: true)
        await #expect(throws: RetrievalError.backendMismatch(index: b.identity, query: a.identity)) {
            _ = try await old.search("cat", k: 1)
        }
    }

    @Test func `without an embedding model search is BM25 and says so`() async throws {
        let dir = try TemporaryDirectory()
        let box = EventBox()
        let index = try DocumentIndex(directory: dir.path, embedder: nil, onEvent: { box.append($0) })
        #expect(await index.capability == .lexical(reason: "no embedding model is available"))
        try await index.add(DocumentIndexTests.corpus)
        let found = try await index.search("Which mountain is the tallest?", k: 3)
        #expect(found.method == .bm25)
        #expect(found.capability == .lexical(reason: "no embedding model is available"))
        #expect(found.hits.first?.documentId == "c")
        #expect(found.hits.allSatisfy { $0.score > 0 })
        #expect(found.hits.count <= 3)
        #expect(box.events.contains(.lexicalFallback(reason: "no embedding model is available")))
        #expect(await index.pendingDocumentCount == 4)
    }

    @Test func `documents added lexically are embedded when a model arrives`() async throws {
        let dir = try TemporaryDirectory()
        do {
            let index = try DocumentIndex(directory: dir.path, embedder: nil)
            try await index.add(DocumentIndexTests.corpus)
        }
        let embedder = try TestEmbedders.hashing()
        let index = try DocumentIndex(directory: dir.path, embedder: embedder)
        #expect(await index.capability == .semantic(embedder.identity))
        let found = try await index.search("bake bread oven", k: 1)
        #expect(found.capability == .semantic(embedder.identity))
        #expect(found.method == .exact)
        #expect(found.hits.first?.documentId == "d")
        #expect(await index.pendingDocumentCount == 0)
        // BM25 stays available on a semantic index, and is labelled as such.
        let lexical = try await index.lexicalSearch("bread", k: 2)
        #expect(lexical.method == .bm25)
        #expect(!lexical.capability.isSemantic)
    }

    @Test func `BM25 ranks rarer matching terms higher and ignores punctuation`() async throws {
        let dir = try TemporaryDirectory()
        let index = try DocumentIndex(directory: dir.path, embedder: nil)
        try await index.add([
            IndexDocument(id: "1", text: "the the the the cat"),
            IndexDocument(id: "2", text: "the dog"),
            IndexDocument(id: "3", text: "the cat, the dog and the mat"),
            IndexDocument(id: "4", text: "nothing relevant here"),
        ])
        let found = try await index.lexicalSearch("cat!", k: 10)
        #expect(Set(found.hits.map(\.documentId)) == ["1", "3"])
        let both = try await index.lexicalSearch("cat dog", k: 10)
        #expect(both.hits.first?.documentId == "3")
        #expect(try await index.lexicalSearch("?!", k: 3).hits.isEmpty)
    }
}

/// Collects events from the index's callback.
final class EventBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [IndexEvent] = []
    func append(_ e: IndexEvent) { lock.withLock { stored.append(e) } }
    var events: [IndexEvent] { lock.withLock { stored } }
}
