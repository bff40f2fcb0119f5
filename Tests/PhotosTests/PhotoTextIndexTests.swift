import Foundation
import Photos
import TestSupport
import Testing

/// The per-photo OCR text index: filled by the real models from three golden OCR images, reused
/// while files are unchanged, searched by words.
@Suite(.serialized) struct PhotoTextIndexTests {
    @Test func `photos are found by the words read in them, and unchanged photos are not read again`() throws {
        let reader = try TextReaderGoldenTests.reader()
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let folder = directory.file("photos")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var paths: [String] = []
        for name in ["p04_receipt.png", "p08_heading_72px.jpg", "p12_upside_down.png"] {
            let path = folder + "/" + name
            try FileManager.default.copyItem(atPath: TextReaderGoldenTests.path("images/\(name)"), toPath: path)
            paths.append(path)
        }
        var index = PhotoTextIndex(directory: directory.path)
        let first = index.update(paths, reader: reader, threads: 2)
        #expect(first.read == 3 && first.failures.isEmpty)
        #expect(index.entries[paths[0]]?.text.split(separator: "\n").first == "CORNER CAFE")
        try index.save()

        var reloaded = PhotoTextIndex(directory: directory.path)
        #expect(reloaded.entries == index.entries)
        #expect(reloaded.update(paths, reader: reader, threads: 2).read == 0)
        #expect(reloaded.search("corner cafe").map(\.path) == [paths[0]])
        #expect(reloaded.search("HANDLE with care").first?.path == paths[2])
        #expect(reloaded.search("open 24 hours").first?.path == paths[1])
        #expect(reloaded.search("zebra").isEmpty)
        #expect(reloaded.search("cafe", under: directory.file("elsewhere")).isEmpty)
        #expect(reloaded.search("cafe", under: folder).count == 1)

        // A file that does not parse is ignored, never trusted.
        try Data("{not json".utf8).write(to: URL(fileURLWithPath: index.file))
        #expect(PhotoTextIndex(directory: directory.path).entries.isEmpty)
    }

    /// Three photos written as an index file (no models): a receipt with text, a cat with only
    /// labels, a sign with text; vectors by a model named "m" in three dimensions.
    static func indexFile(in directory: TemporaryDirectory) throws -> PhotoTextIndex {
        let json = """
        {"reader": "\(PhotoTextIndex.readerName)", "labeller": "\(PhotoLabeller.name)", "embedder": "m", "entries": {
          "/p/receipt.png": {"stamp": {"size": 1, "modifiedNanos": 1}, "text": "CORNER CAFE\\nLatte 4.50", "labels": ["menu"], "vector": [1, 0, 0]},
          "/p/cat.jpg": {"stamp": {"size": 2, "modifiedNanos": 2}, "text": "", "labels": ["tabby, tabby cat"], "vector": [0, 1, 0]},
          "/q/sign.jpg": {"stamp": {"size": 3, "modifiedNanos": 3}, "text": "OPEN 24 HOURS", "labels": [], "vector": null}
        }}
        """
        try Data(json.utf8).write(to: URL(fileURLWithPath: directory.file("photo-text.json")))
        return PhotoTextIndex(directory: directory.path)
    }

    @Test func `labels are searched like text, and meaning finds a photo that shares no word`() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let index = try Self.indexFile(in: directory)
        #expect(index.entries.count == 3 && index.embedder == "m" && index.labelledBy == PhotoLabeller.name)
        #expect(index.entries["/p/cat.jpg"]?.document == "tabby, tabby cat")

        // Words only: the cat is found by its label, nothing for a word no photo has.
        #expect(index.search("cat").map(\.path) == ["/p/cat.jpg"])
        #expect(index.search("kitten").isEmpty)
        // With a query vector near the cat's, "kitten" finds it by meaning alone.
        let kitten = index.search("kitten", queryVector: [0.1, 0.995, 0])
        #expect(kitten.first?.path == "/p/cat.jpg" && kitten.first?.wordScore == 0)
        #expect(abs((kitten.first?.similarity ?? 0) - 0.995) < 1e-6)
        // The sign has no vector: it is found only by its words, with no similarity.
        #expect(!kitten.contains { $0.path == "/q/sign.jpg" })
        let open = index.search("open", queryVector: [0, 1, 0])
        #expect(open.first { $0.path == "/q/sign.jpg" }?.similarity == nil)
        #expect(open.contains { $0.path == "/q/sign.jpg" && $0.wordScore > 0 })
        // A photo matching both rankings beats one matching only by meaning.
        let latte = index.search("latte", queryVector: [0, 1, 0])
        #expect(latte.map(\.path).first == "/p/receipt.png", "\(latte)")
        // A vector of another length than the index's is not compared.
        #expect(index.search("kitten", queryVector: [1, 0]).isEmpty)
        #expect(index.search("cafe", queryVector: [1, 0, 0], under: "/q").isEmpty)
    }

    @Test func `vectors of another embedder are dropped, never mixed`() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        var index = try Self.indexFile(in: directory)
        #expect(index.unembedded(by: "m").map(\.path) == ["/q/sign.jpg"])
        #expect(index.unembedded(by: "m", among: ["/p/cat.jpg"]).isEmpty)
        #expect(index.unembedded(by: "other").map(\.path) == ["/p/cat.jpg", "/p/receipt.png", "/q/sign.jpg"])
        #expect(index.unembedded(by: "m").first?.document == "OPEN 24 HOURS")

        index.setVectors(["/q/sign.jpg": [0, 0, 1]], embedder: "m")
        #expect(index.unembedded(by: "m").isEmpty)
        index.setVectors(["/p/cat.jpg": [0, 0, 1, 0], "/nowhere.jpg": [1, 0, 0, 0]], embedder: "other")
        #expect(index.embedder == "other" && index.entries["/nowhere.jpg"] == nil)
        #expect(index.entries.values.compactMap(\.vector) == [[0, 0, 1, 0]])
        try index.save()
        let reloaded = PhotoTextIndex(directory: directory.path)
        #expect(reloaded.entries == index.entries && reloaded.embedder == "other")
    }

    @Test func `query words are lower-cased runs of letters and digits`() {
        #expect(PhotoTextIndex.terms("Card **** 4821, Thank-you!") == ["card", "4821", "thank", "you"])
    }
}
