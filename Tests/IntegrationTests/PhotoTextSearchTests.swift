import Foundation
import OnDevice
import Runtime
import Testing
import TestSupport

/// Text in photos through the doors: `readText` and `ondevice ocr` on one golden image;
/// `PhotoLibrary.indexText` reads, labels and
/// embeds a folder of golden images (two with text, two without), `searchText` finds them by
/// words and by meaning, and `ondevice photos index --text` / `photos search` do the same.
@Suite(.serialized) struct PhotoTextSearchTests {
    static let images = ["ocr/images/p04_receipt.png", "ocr/images/p11_noisy_gray.jpg", "faces/images/f08_chelsea_cat.png",
                         "faces/images/f09_coffee.png"]

    /// A folder holding copies of `images`, and a cache folder.
    static func folder() throws -> (photos: TemporaryDirectory, cache: TemporaryDirectory) {
        for name in ["ch_PP-OCRv4_det_infer.onnx", "ch_PP-OCRv4_rec_infer.onnx", "efficientnet-lite0-57934424.pth",
                     "face_detection_short_range.tflite"] {
            _ = try #require(TestModels.path(name), "\(name) not installed: run scripts/setup.sh")
        }
        let photos = try TemporaryDirectory(), cache = try TemporaryDirectory()
        for image in images {
            try FileManager.default.copyItem(atPath: GoldenFiles.root.appendingPathComponent("vision2/\(image)").path,
                                             toPath: photos.file((image as NSString).lastPathComponent))
        }
        return (photos, cache)
    }

    @Test func `indexText reads, labels and embeds; searchText finds photos by words and by meaning`() async throws {
        let (photos, cache) = try Self.folder()
        defer { photos.cleanup(); cache.cleanup() }
        var configuration = OnDeviceAI.Configuration()
        configuration.threads = 2
        let ai = OnDeviceAI(configuration: configuration)
        let library = try await ai.photoLibrary(cacheDirectory: URL(fileURLWithPath: cache.path))
        let first = try await library.indexText(directory: URL(fileURLWithPath: photos.path))
        #expect(first.photos == 4 && first.read == 4 && first.skipped.isEmpty, "\(first)")
        #expect(first.labelModel == "efficientnet-lite0" && first.embeddingModel == "all-minilm-l6-v2", "\(first.notes)")
        let again = try await library.indexText(directory: URL(fileURLWithPath: photos.path))
        #expect(again.read == 0 && again.embeddingModel == "all-minilm-l6-v2")

        func top(_ query: String) async throws -> PhotoTextMatch {
            let result = try await library.searchText(query, count: 4)
            #expect(result.embeddingModel == "all-minilm-l6-v2" && result.note == nil)
            return try #require(result.matches.first, "\(query): nothing found")
        }
        // By words: the receipt's text (RapidOCR reads "Latte" on p04), the noisy boarding card.
        let latte = try await top("latte")
        #expect(latte.url.lastPathComponent == "p04_receipt.png" && latte.wordScore > 0 && latte.text.contains("CORNER CAFE"))
        // By meaning: no photo says "kitten"; the cat is labelled a cat and found by that.
        let kitten = try await top("kitten")
        #expect(kitten.url.lastPathComponent == "f08_chelsea_cat.png" && kitten.wordScore == 0, "\(kitten)")
        #expect(kitten.labels.contains { $0.contains("cat") } && (kitten.similarity ?? 0) > 0.3, "\(kitten)")
        let coffee = try await top("a cup of coffee")
        #expect(coffee.url.lastPathComponent == "f09_coffee.png", "\(coffee)")
        // The library's own doors to text and faces are the instance's.
        let receipt = try await library.readText(in: URL(fileURLWithPath: photos.file("p04_receipt.png")))
        #expect(receipt.first?.text == "CORNER CAFE" && receipt.count == 14, "\(receipt.map(\.text))")
        #expect(try await library.detectFaces(in: URL(fileURLWithPath: photos.file("f09_coffee.png"))).faces.isEmpty)
        // Only photos under the given folder are searched.
        let elsewhere = try await library.searchText("latte", in: URL(fileURLWithPath: cache.path))
        #expect(elsewhere.matches.isEmpty)
    }

    @Test func `the reader's three networks are leased through the runtime within their estimates`() async throws {
        _ = try Self.folder()
        var dependencies = RuntimeDependencies.complete()
        dependencies.settingsFile = nil
        dependencies.pressureProbe = nil
        let runtime = try await OnDeviceRuntime.make(dependencies)
        let ids = ["ppocr-v4-det", "ppocr-v4-cls", "ppocr-v4-rec"]
        for id in ids {
            let report = try await runtime.capabilities.capability(modelId: id, options: LoadOptions())
            #expect(report.status == .ready, "\(id): \(report.status)")
            let estimate = try #require(report.residentEstimate)
            let lease = try await runtime.lease(ResidentONNXGraph.self, modelId: id, options: LoadOptions())
            let resident = lease.model.residentBytes
            // The weights decode one for one from the float32 file; the scratch is the measured bound.
            #expect(resident <= estimate.weightBytes && resident > estimate.weightBytes * 9 / 10, "\(id): \(resident) vs \(estimate)")
            #expect(estimate.scratchBytes == (id == "ppocr-v4-det" ? 448 << 20 : 2 * 48 * 5_888 * 64 * 4))
            await lease.release()
        }
        #expect(Set(await runtime.residency.snapshot().modelIds) == Set(ids))
        await runtime.shutdown()
    }

    @Test func `readText and ondevice ocr restore the space RapidOCR drops`() async throws {
        _ = try Self.folder()
        let image = GoldenFiles.root.appendingPathComponent("vision2/ocr/images/p03_digits_mono.jpg")
        let lines = try await OnDeviceAI().readText(in: image)
        // ocr.jsonl: RapidOCR reads 7 pieces, the first "Invoice#2024-0117" (score 0.995).
        #expect(lines.count == 7, "\(lines.map(\.text))")
        let first = try #require(lines.first)
        #expect(first.text == "Invoice #2024-0117" && first.rawText == "Invoice#2024-0117" && first.confidence > 0.99)
        let out = try await CLIRunner.run(["ocr", image.path, "--json", "--threads", "2"])
        #expect(out.status == 0, "\(out.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any], "\(out.stdout)")
        let json = try #require(object["lines"] as? [[String: Any]])
        #expect(json.first?["text"] as? String == "Invoice #2024-0117" && json.first?["raw_text"] as? String == "Invoice#2024-0117")
        #expect((json.first?["box"] as? [[Double]])?.count == 4)
        await #expect(throws: OnDeviceError.self) { try await OnDeviceAI().readText(in: URL(fileURLWithPath: "/nonexistent/receipt.png")) }
    }

    /// `jpeg` wrapped as a CR2-style raw file: a little-endian TIFF whose IFD0 strip is the JPEG
    /// (compression 6), the layout the raw decoder takes its preview from.
    static func rawFile(wrapping jpeg: [UInt8], at path: String) throws {
        func u16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF), UInt8((v >> 16) & 0xFF), UInt8(v >> 24)] }
        let start = 8 + 2 + 3 * 12 + 4
        var bytes: [UInt8] = [0x49, 0x49, 0x2A, 0x00] + u32(8) + u16(3)
        bytes += u16(0x0103) + u16(3) + u32(1) + u16(6) + u16(0)          // Compression: JPEG
        bytes += u16(0x0111) + u16(4) + u32(1) + u32(start)               // StripOffsets
        bytes += u16(0x0117) + u16(4) + u32(1) + u32(jpeg.count)          // StripByteCounts
        bytes += u32(0) + jpeg
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    @Test func `ondevice faces and ocr read a raw file's preview`() async throws {
        let (photos, cache) = try Self.folder()
        defer { photos.cleanup(); cache.cleanup() }
        let golden = GoldenFiles.root.appendingPathComponent("vision2")
        try Self.rawFile(wrapping: try [UInt8](Data(contentsOf: golden.appendingPathComponent("faces/images/f02_astronaut_q90.jpg"))),
                         at: photos.file("portrait.cr2"))
        try Self.rawFile(wrapping: try [UInt8](Data(contentsOf: golden.appendingPathComponent("ocr/images/p03_digits_mono.jpg"))),
                         at: photos.file("invoice.cr2"))
        let faces = try await CLIRunner.run(["faces", photos.file("portrait.cr2"), "--json"])
        #expect(faces.status == 0, "\(faces.stderr)")
        let found = try #require(try JSONSerialization.jsonObject(with: Data(faces.stdout.utf8)) as? [String: Any], "\(faces.stdout)")
        #expect((found["faces"] as? [[String: Any]])?.count == 1)
        let text = try await CLIRunner.run(["ocr", photos.file("invoice.cr2"), "--json"])
        #expect(text.status == 0, "\(text.stderr)")
        let read = try #require(try JSONSerialization.jsonObject(with: Data(text.stdout.utf8)) as? [String: Any], "\(text.stdout)")
        #expect((read["lines"] as? [[String: Any]])?.first?["text"] as? String == "Invoice #2024-0117")
    }

    @Test func `ondevice photos index --text and photos search --json`() async throws {
        let (photos, cache) = try Self.folder()
        defer { photos.cleanup(); cache.cleanup() }
        let index = try await CLIRunner.run(["photos", "index", photos.path, "--text", "--json", "--cache", cache.path])
        #expect(index.status == 0, "\(index.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(index.stdout.utf8)) as? [String: Any], "\(index.stdout)")
        #expect(report["text_read"] as? Int == 4 && report["label_model"] as? String == "efficientnet-lite0", "\(report)")
        #expect(report["embedding_model"] as? String == "all-minilm-l6-v2")

        let search = try await CLIRunner.run(["photos", "search", "receipt from the bakery", "--json", "--k", "2", "--cache", cache.path])
        #expect(search.status == 0, "\(search.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(search.stdout.utf8)) as? [String: Any], "\(search.stdout)")
        let results = try #require(object["results"] as? [[String: Any]])
        #expect(results.count == 2 && object["embedding_model"] as? String == "all-minilm-l6-v2")
        let best = (results.first?["path"] as? String).map { URL(fileURLWithPath: $0).lastPathComponent }
        #expect(best == "p04_receipt.png", "\(results)")

        let missing = try await CLIRunner.run(["photos", "search", "--cache", cache.path])
        #expect(missing.status != 0 && missing.stderr.contains("TEXT"))
    }
}
