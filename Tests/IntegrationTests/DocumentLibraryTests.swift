import Foundation
import OnDevice
import Platform
import Testing
import TestSupport

/// The public document library on the installed embedding models: search by meaning, by words
/// when asked or when no model can be had (said so), one backend per index, leases returned
/// after every operation.
@Suite(.serialized) struct DocumentLibraryTests {
    static let documents = [
        LibraryDocument(id: "everest", text: "Mount Everest is the highest mountain above sea level.", metadata: ["topic": "geography"]),
        LibraryDocument(id: "bread", text: "Sourdough bread needs a starter and a hot oven."),
        LibraryDocument(id: "tides", text: "The moon's gravity pulls the oceans and causes the tides."),
    ]

    static func instance(embeddingModel: String = "all-minilm-l6-v2") -> OnDeviceAI {
        var c = OnDeviceAI.Configuration()
        c.threads = 2
        c.embeddingModel = embeddingModel
        return OnDeviceAI(configuration: c)
    }

    @Test func `search by meaning finds the passage that shares no word with the query`() async throws {
        let dir = try TemporaryDirectory()
        let ai = Self.instance()
        let library = try await ai.documentLibrary(at: URL(fileURLWithPath: dir.path))
        try await library.add(Self.documents)
        let found = try await library.search("Which peak is the tallest?", count: 2)
        guard case .semantic(let model, _, _, let dimension, let approximate) = found.method else {
            Issue.record("expected semantic search, got \(found.method)")
            return
        }
        #expect(model == "all-minilm-l6-v2" && dimension == 384 && !approximate)
        #expect(found.passages.map(\.documentId).first == "everest", "\(found.passages)")
        #expect(found.passages.first?.metadata == ["topic": "geography"])
        #expect(found.passages.count == 2 && found.passages[0].score >= found.passages[1].score)
        #expect(await library.documents().map(\.id) == ["bread", "everest", "tides"])
        #expect(try await ai.activeLeases() == 0, "the embedding model is leased per operation")

        try await library.remove(["bread"])
        await #expect(throws: OnDeviceError.self) { try await library.remove(["no-such-document"]) }
        #expect(await library.documents().map(\.id) == ["everest", "tides"])
    }

    @Test func `words only when asked, or when the model cannot be had, and the result says why`() async throws {
        let dir = try TemporaryDirectory()
        var options = DocumentLibrary.Options()
        options.lexicalOnly = true
        let lexical = try await Self.instance().documentLibrary(at: URL(fileURLWithPath: dir.path), options: options)
        try await lexical.add(Self.documents)
        let byWords = try await lexical.search("bread oven", count: 1)
        #expect(byWords.passages.map(\.documentId) == ["bread"])
        guard case .lexical = byWords.method else { Issue.record("\(byWords.method)"); return }
        #expect(await lexical.vectorModel == nil)

        let notices = Locked<[String]>([])
        var missing = DocumentLibrary.Options()
        missing.embeddingModel = "no-such-embedding-model"
        missing.readOnly = true
        let fallback = try await Self.instance().documentLibrary(at: URL(fileURLWithPath: dir.path), options: missing) { notice in
            notices.withLock { $0.append(notice) }
        }
        let found = try await fallback.search("moon gravity", count: 1)
        #expect(found.passages.map(\.documentId) == ["tides"])
        guard case .lexical(let reason) = found.method else { Issue.record("\(found.method)"); return }
        #expect(reason.contains("no embedding model"), "\(reason)")
        #expect(notices.withLock { $0 }.contains { $0.contains("no-such-embedding-model") }, "\(notices.withLock { $0 })")
        await #expect(throws: OnDeviceError.self) { try await fallback.add(Self.documents) }
    }

    @Test func `another model is refused until reembed moves the index to it`() async throws {
        let dir = try TemporaryDirectory()
        let url = URL(fileURLWithPath: dir.path)
        do {  // a writer holds the index's lock while it lives
            let miniLM = try await Self.instance().documentLibrary(at: url)
            try await miniLM.add(Self.documents)
            let stored = try #require(await miniLM.vectorModel)
            #expect(stored.contains("all-minilm-l6-v2"))
        }
        let ai = Self.instance(embeddingModel: "nomic-embed-text-v1.5-f16")
        do {
            var options = DocumentLibrary.Options()
            options.embeddingModel = "nomic-embed-text-v1.5-f16"
            let nomic = try await ai.documentLibrary(at: url, options: options)
            await #expect(throws: OnDeviceError.self) { _ = try await nomic.search("tallest mountain") }
            let backend = try await nomic.reembed()
            #expect(backend.contains("nomic-embed-text-v1.5-f16"), "\(backend)")
            let found = try await nomic.search("Which peak is the tallest?", count: 1)
            guard case .semantic(let model, _, _, let dimension, _) = found.method else { Issue.record("\(found.method)"); return }
            #expect(model == "nomic-embed-text-v1.5-f16" && dimension == 768)
            #expect(found.passages.map(\.documentId) == ["everest"])
        }
        // Without a model named, a library opens with the model its vectors came from.
        let reopened = try await Self.instance().documentLibrary(at: url)
        let again = try await reopened.search("ocean tides and the moon", count: 1)
        guard case .semantic(let reopenedModel, _, _, _, _) = again.method else { Issue.record("\(again.method)"); return }
        #expect(reopenedModel == "nomic-embed-text-v1.5-f16")
        #expect(try await ai.activeLeases() == 0)
    }
}
