import Foundation
import Retrieval
import Testing
import TestSupport

/// A write cut short at any byte leaves an index that opens, holds exactly the records before
/// the cut, and keeps the backend rule.
struct CrashSafetyTests {
    /// Copies `source`'s journal cut to `length` bytes into a fresh directory.
    static func cut(_ source: TemporaryDirectory, to length: Int) throws -> TemporaryDirectory {
        let data = try Data(contentsOf: URL(fileURLWithPath: source.file("index.journal")))
        let copy = try TemporaryDirectory()
        try data.prefix(length).write(to: URL(fileURLWithPath: copy.file("index.journal")))
        return copy
    }

    @Test func `cutting the journal at every byte of the last record loses only that record`() async throws {
        let dir = try TemporaryDirectory()
        let embedder = try TestEmbedders.hashing()
        let before: Int, after: Int
        do {
            let index = try DocumentIndex(directory: dir.path, embedder: embedder)
            try await index.add(Array(DocumentIndexTests.corpus.prefix(3)))
            before = await index.journalBytes
            try await index.add(id: "new", text: "The longest river is the Nile.", metadata: ["k": "v"])
            after = await index.journalBytes
        }
        #expect(after > before)
        for length in before...after {
            let copy = try Self.cut(dir, to: length)
            let box = EventBox()
            let index = try DocumentIndex(directory: copy.path, embedder: embedder, onEvent: { box.append($0) })
            let ids = await index.documentIds
            if length == after {
                #expect(ids == ["a", "b", "c", "new"])
                #expect(box.events.isEmpty)
            } else {
                #expect(ids == ["a", "b", "c"], "cut at \(length)")
                if length > before { #expect(box.events.contains(.recovered(tornBytes: length - before))) }
            }
            #expect(try await index.search("eiffel paris", k: 1).hits.first?.documentId == "b")
            // The writer cut the torn bytes off, so a second open finds a clean journal.
            #expect(await index.journalBytes == (length == after ? after : before))
        }
    }

    @Test func `cutting a re-embedding anywhere never mixes two backends`() async throws {
        let dir = try TemporaryDirectory()
        let a = try TestEmbedders.hashing(revision: "r1", salt: 1)
        let b = try TestEmbedders.hashing(revision: "r2", salt: 2)
        let before: Int, after: Int
        do {
            let index = try DocumentIndex(directory: dir.path, embedder: a)
            try await index.add(DocumentIndexTests.corpus)
            before = await index.journalBytes
        }
        do {
            let index = try DocumentIndex(directory: dir.path, embedder: b)
            try await index.reembed()
            after = await index.journalBytes
        }
        var sawSwitched = false, sawOld = false
        for length in stride(from: before, through: after, by: 7) + [after] {
            let copy = try Self.cut(dir, to: length)
            let withB = try DocumentIndex(directory: copy.path, embedder: b, readOnly: true)
            let backend = await withB.backend
            if backend == b.identity {
                sawSwitched = true
                // Whatever was cut, b catches up on the rest and ranks only b's vectors.
                let found = try await withB.search("tallest mountain everest", k: 4)
                #expect(found.hits.count == 4)
                #expect(found.hits.first?.documentId == "c")
                let withA = try DocumentIndex(directory: copy.path, embedder: a, readOnly: true)
                if await withA.pendingDocumentCount < 4 {
                    await #expect(throws: RetrievalError.backendMismatch(index: b.identity, query: a.identity)) {
                        _ = try await withA.search("cat", k: 1)
                    }
                }
            } else {
                sawOld = true
                #expect(backend == a.identity)
                await #expect(throws: RetrievalError.backendMismatch(index: a.identity, query: b.identity)) {
                    _ = try await withB.search("cat", k: 1)
                }
            }
        }
        #expect(sawSwitched && sawOld)
    }

    @Test func `damage before the end of the journal is an error, not a silent loss`() async throws {
        let dir = try TemporaryDirectory()
        let middle: Int
        do {
            let index = try DocumentIndex(directory: dir.path, embedder: nil)
            try await index.add(id: "1", text: "first")
            middle = await index.journalBytes - 3
            try await index.add(id: "2", text: "second")
        }
        let path = dir.file("index.journal")
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        data[middle] ^= 0xFF
        try data.write(to: URL(fileURLWithPath: path))
        #expect(throws: RetrievalError.self) { _ = try DocumentIndex(directory: dir.path, embedder: nil) }
        // A journal that is not ours at all.
        try Data("hello world, not an index".utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: RetrievalError.corruptIndex(path: path, offset: 0, reason: "not an index journal")) {
            _ = try DocumentIndex(directory: dir.path, embedder: nil)
        }
    }

    @Test func `a zero-filled tail left by a crash is cut off`() async throws {
        let dir = try TemporaryDirectory()
        do {
            let index = try DocumentIndex(directory: dir.path, embedder: nil)
            try await index.add(DocumentIndexTests.corpus)
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: dir.file("index.journal")))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(count: 4096))
        try handle.close()
        let index = try DocumentIndex(directory: dir.path, embedder: nil)
        #expect(await index.documentCount == 4)
    }
}
