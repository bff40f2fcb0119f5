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

    @Test func `query words are lower-cased runs of letters and digits`() {
        #expect(PhotoTextIndex.terms("Card **** 4821, Thank-you!") == ["card", "4821", "thank", "you"])
    }
}
