import Foundation
import Retrieval
import Testing
import TestSupport

/// Index behaviour on the fast hashing embedder: add/update/remove, metadata, chunking,
/// persistence, the backend-identity rule and the lexical fallback.
struct DocumentIndexTests {
    static let corpus = [
        IndexDocument(id: "a", text: "The cat sat on the mat.", metadata: ["path": "a.txt"]),
        IndexDocument(id: "b", text: "The Eiffel tower is in Paris, France.", metadata: ["path": "b.txt"]),
        IndexDocument(id: "c", text: "Mount Everest is the tallest mountain.", metadata: ["path": "c.txt"]),
        IndexDocument(id: "d", text: "Bake bread in the oven.", metadata: [:]),
    ]

    @Test func `added documents are found by meaning, with their metadata`() async throws {
        let dir = try TemporaryDirectory()
        let index = try DocumentIndex(directory: dir.path, embedder: try TestEmbedders.hashing())
        try await index.add(Self.corpus)
        let found = try await index.search("eiffel tower paris", k: 2)
        #expect(found.method == .exact)
        #expect(found.hits.first?.documentId == "b")
        #expect(found.hits.first?.metadata == ["path": "b.txt"])
        #expect(found.hits.first?.text == "The Eiffel tower is in Paris, France.")
        #expect(found.hits.count == 2)
        #expect(found.hits[0].score >= found.hits[1].score)
    }

    @Test func `updating replaces a document and removing deletes it`() async throws {
        let dir = try TemporaryDirectory()
        let index = try DocumentIndex(directory: dir.path, embedder: try TestEmbedders.hashing())
        try await index.add(Self.corpus)
        try await index.add(id: "a", text: "Quantum computer with a qubit.", metadata: ["v": "2"])
        #expect(await index.documentCount == 4)
        #expect(try await index.search("quantum qubit", k: 1).hits.first?.chunk == ChunkKey(documentId: "a", ordinal: 0))
        #expect(try await index.search("cat mat", k: 4).hits.allSatisfy { !$0.text.contains("cat") })
        try await index.remove(["b"])
        #expect(try await index.search("eiffel paris", k: 4).hits.allSatisfy { $0.documentId != "b" })
        await #expect(throws: RetrievalError.unknownDocument(id: "zz")) { try await index.remove(["zz"]) }
        #expect(await index.documentIds == ["a", "c", "d"])
    }

    @Test func `long documents are cut into overlapping chunks at word starts`() async throws {
        let dir = try TemporaryDirectory()
        var options = IndexOptions()
        options.chunking = ChunkingOptions(tokens: 8, overlap: 3)
        let index = try DocumentIndex(directory: dir.path, embedder: try TestEmbedders.hashing(), options: options)
        let words = (0..<40).map { TestEmbedders.words[$0 % TestEmbedders.words.count] }
        try await index.add(id: "long", text: words.joined(separator: " "))
        let chunks = await index.chunks(of: "long")
        #expect(chunks.count > 5)
        for (previous, next) in zip(chunks, chunks.dropFirst()) {
            // Every word is one vocabulary piece here, so the overlap is exactly 3 words.
            let tail = previous.split(separator: " ").suffix(3)
            #expect(next.hasPrefix(tail.joined(separator: " ")), "chunks overlap: '\(previous)' then '\(next)'")
        }
        #expect(chunks.allSatisfy { $0.split(separator: " ").allSatisfy { TestEmbedders.words.contains(String($0)) } },
                "no chunk starts or ends inside a word")
        let hit = try await index.search(chunks[3], k: 1).hits.first
        #expect(hit?.chunk.ordinal == 3)
    }

    @Test func `the index survives closing and reopening`() async throws {
        let dir = try TemporaryDirectory()
        let embedder = try TestEmbedders.hashing()
        do {
            let index = try DocumentIndex(directory: dir.path, embedder: embedder)
            try await index.add(Self.corpus)
            try await index.remove(["d"])
        }
        let reopened = try DocumentIndex(directory: dir.path, embedder: embedder)
        #expect(await reopened.documentIds == ["a", "b", "c"])
        #expect(await reopened.backend == embedder.identity)
        #expect(await reopened.pendingDocumentCount == 0)
        #expect(try await reopened.search("tallest mountain everest", k: 1).hits.first?.documentId == "c")
        let readOnly = try DocumentIndex(directory: dir.path, embedder: embedder, readOnly: true)
        #expect(await readOnly.documentCount == 3)
        await #expect(throws: RetrievalError.self) { try await readOnly.add(id: "x", text: "x") }
    }

    @Test func `a second writer waits for the lock and then gives up`() throws {
        let dir = try TemporaryDirectory()
        let first = try DocumentIndex(directory: dir.path, embedder: nil)
        #expect(throws: RetrievalError.indexLocked(path: dir.path + "/index.lock")) {
            _ = try DocumentIndex(directory: dir.path, embedder: nil, lockTimeout: 0.1)
        }
        _ = first
    }

    @Test func `compaction keeps the live documents and shrinks the journal`() async throws {
        let dir = try TemporaryDirectory()
        do {
            let index = try DocumentIndex(directory: dir.path, embedder: try TestEmbedders.hashing())
            for round in 0..<5 { try await index.add(Self.corpus.map { IndexDocument(id: $0.id, text: $0.text + " \(round)") }) }
            let before = await index.journalBytes
            try await index.compact()
            #expect(await index.journalBytes < before / 3)
        }
        let reopened = try DocumentIndex(directory: dir.path, embedder: try TestEmbedders.hashing())
        #expect(await reopened.documentCount == 4)
        #expect(await reopened.document("b")?.text.hasSuffix(" 4") == true)
        #expect(await reopened.pendingDocumentCount == 0)
        #expect(!FileManager.default.fileExists(atPath: dir.file("index.journal.compact")))
    }
}
