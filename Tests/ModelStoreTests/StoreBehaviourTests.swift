import Foundation
import Testing
import ModelStore
import TestSupport

struct StoreBehaviourTests {
    @Test func `two concurrent pulls of one model end with one verified copy`() async throws {
        let fixture = try StoreFixture()
        let body = sampleBytes(200_000)
        let entry = fixture.model(files: [("weights.bin", body)])
        // Two store instances share nothing in memory, so only the lock file keeps them apart.
        let first = try fixture.store(), second = try fixture.store()
        try await first.register(entry)
        try await second.register(entry)
        let path = fixture.path(file: "weights.bin")
        fixture.server.inject([.stall(afterBytes: 50_000, seconds: 0.2)], for: path)
        async let a = first.pull("test-model")
        async let b = second.pull("test-model")
        let (modelA, modelB) = try await (a, b)
        #expect(modelA.directory == modelB.directory)
        #expect(contents(modelA.filePaths[0]) == body)
        #expect(fixture.server.bytesSent(for: path) == body.count)
        #expect(try await first.validate("test-model").isValid)
    }

    @Test func `a model id that climbs out of the root is rejected before any I/O`() async throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        await #expect(throws: StoreError.invalidModelId(id: "../evil")) { try await store.pull("../evil") }
        await #expect(throws: StoreError.invalidModelId(id: "../evil")) { try await store.delete("../evil") }
        var entry = fixture.model(files: [("x.bin", [1, 2, 3])])
        entry.files[0].name = "../../outside.bin"
        await #expect(throws: StoreError.invalidPath(path: "../../outside.bin")) { try await store.register(entry) }
        entry = fixture.model(repo: "org/repo", files: [("x.bin", [1])])
        entry.revision = ".."
        await #expect(throws: StoreError.invalidPath(path: "..")) { try await store.register(entry) }
        await #expect(throws: StoreError.unknownModel(id: "nope")) { try await store.pull("nope") }
    }

    @Test func `an unchanged model is not hashed again and an edit in place is caught`() async throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        let body = sampleBytes(100_000)
        try await store.register(fixture.model(files: [("model.gguf", Array("GGUF".utf8) + body), ("b.bin", body)]))
        _ = try await store.pull("test-model")
        // The install recorded its snapshot: validation reuses it.
        let cached = try await store.validate("test-model")
        #expect(cached.isValid && cached.reusedCache && cached.bytesHashed == 0)
        let forced = try await store.validate("test-model", force: true)
        #expect(forced.isValid && !forced.reusedCache && forced.bytesHashed == Int64(2 * body.count + 4))
        let hashedSoFar = await store.statistics.bytesHashed
        let again = try await store.validate("test-model")
        #expect(again.reusedCache && again.bytesHashed == 0)
        #expect(await store.statistics.bytesHashed == hashedSoFar)
        // Same size, one byte changed, and the old mtime put back: ctime/mtime still differ.
        let file = fixture.modelDirectory() + "/b.bin"
        var edited = body
        edited[500] ^= 0xff
        var before = stat()
        stat(file, &before)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: file))
        try handle.write(contentsOf: Data(edited))
        try handle.close()
        var times = [before.st_atim, before.st_mtim]
        utimensat(AT_FDCWD, file, &times, 0)
        let caught = try await store.validate("test-model")
        #expect(!caught.reusedCache && caught.problem == .checksumMismatch(file: "b.bin", expected: SHA256.hex(of: body), actual: SHA256.hex(of: edited)))
        // A refresh replaces the damaged copy.
        _ = try await store.refresh("test-model")
        #expect(contents(file) == body)
    }

    @Test func `a GGUF file without its magic fails validation without hashing`() async throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        let bytes = Array("GGUF".utf8) + sampleBytes(5000)
        try await store.register(fixture.model(files: [("m.gguf", bytes)]))
        _ = try await store.pull("test-model")
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: fixture.modelDirectory() + "/m.gguf"))
        try handle.write(contentsOf: Data("GGUG".utf8))
        try handle.close()
        let report = try await store.validate("test-model")
        #expect(report.problem == .invalidHeader(file: "m.gguf", expected: "GGUF magic") && report.bytesHashed == 0)
    }

    @Test func `several files download concurrently into one atomic install`() async throws {
        let fixture = try StoreFixture()
        let files = (0..<6).map { ("dir\($0 % 2)/file \($0).bin", sampleBytes(40_000 + $0, seed: UInt64($0 + 1))) }
        let store = try fixture.store()
        try await store.register(fixture.model(files: files))
        fixture.server.inject([.dropAfter(bytes: 1000)], for: fixture.path(file: "dir1/file 3.bin"))
        let model = try await store.pull("test-model")
        for (index, file) in files.enumerated() { #expect(contents(model.filePaths[index]) == file.1) }
        let status = try await store.get("test-model")
        #expect(status.state == .installed && status.bytesOnDisk == Int64(files.reduce(0) { $0 + $1.1.count }))
    }

    @Test func `X-Linked-Etag is verified when no digest was given, and recorded`() async throws {
        let fixture = try StoreFixture()
        let body = sampleBytes(30_000)
        fixture.server.serve(path: "/blob/good", body: body)
        fixture.server.inject([.redirect(to: "/blob/good", headers: ["X-Linked-Etag": "\"\(SHA256.hex(of: body))\""])],
                              for: fixture.path(file: "good.bin"))
        fixture.server.inject([.redirect(to: "/blob/good", headers: ["X-Linked-Etag": "\"\(String(repeating: "0", count: 64))\""])],
                              for: fixture.path(file: "bad.bin"))
        let store = try fixture.store(fixture.configuration(token: "secret"))
        let good = try await store.register(PullSpec.parse("hf:org/repo/good.bin"))
        let bad = try await store.register(PullSpec.parse("hf:org/repo/bad.bin"))
        let model = try await store.pull(good)
        #expect(contents(model.filePaths[0]) == body)
        #expect(model.entry.files[0].sha256 == SHA256.hex(of: body))
        #expect(try await ModelStore(configuration: fixture.configuration()).catalog.entry(id: good).files[0].sha256 == SHA256.hex(of: body))
        #expect(fixture.server.requests(for: fixture.path(file: "good.bin"))[0].headers["authorization"] == "Bearer secret")
        await #expect(throws: StoreError.checksumMismatch(file: "bad.bin", expected: String(repeating: "0", count: 64), actual: SHA256.hex(of: body))) {
            try await store.pull(bad)
        }
    }

    @Test func `the token is not sent to another host after a redirect`() async throws {
        let fixture = try StoreFixture()
        fixture.server.serve(path: "/cdn/x", body: [1, 2, 3])
        fixture.server.inject([.redirect(to: "http://localhost:\(fixture.server.port)/cdn/x")], for: fixture.path(file: "x.bin"))
        let store = try fixture.store(fixture.configuration(token: "secret"))
        _ = try await store.pull(store.register(PullSpec.parse("hf:org/repo/x.bin")))
        #expect(fixture.server.requests(for: "/cdn/x").first?.headers["authorization"] == nil)
    }

    @Test func `URLSession transport resumes a dropped connection too`() async throws {
        let fixture = try StoreFixture()
        let body = sampleBytes(150_000)
        let store = try fixture.store(fixture.configuration(fetcher: URLSessionHTTPClient()))
        try await store.register(fixture.model(files: [("w.bin", body)], headers: ["ETag": "\"e\""]))
        let path = fixture.path(file: "w.bin")
        fixture.server.inject([.dropAfter(bytes: 60_000), .status(500)], for: path)
        let model = try await store.pull("test-model")
        #expect(contents(model.filePaths[0]) == body)
        #expect(fixture.server.requests(for: path).map { $0.headers["range"] } == [nil, "bytes=60000-", "bytes=60000-"])
    }

    @Test func `import copies a folder, and a pinned id must match its pinned digests`() async throws {
        let fixture = try StoreFixture()
        let source = fixture.root + "/../import-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { FileSystem.removeTree(source) }
        try FileSystem.makeDirectories(source + "/sub")
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: source + "/a.bin"))
        try Data([4, 5]).write(to: URL(fileURLWithPath: source + "/sub/b.json"))
        let store = try fixture.store()
        let model = try await store.importModel(id: "my-model", from: source, kind: .embedding)
        #expect(model.entry.files.map(\.name) == ["a.bin", "sub/b.json"])
        #expect(model.entry.files.map(\.sha256) == [SHA256.hex(of: [1, 2, 3]), SHA256.hex(of: [4, 5])])
        #expect(model.directory == fixture.root + "/local/my-model/local/import")
        #expect(try await ModelStore(configuration: fixture.configuration()).resolve("my-model")?.filePaths.count == 2)
        try Data([9]).write(to: URL(fileURLWithPath: source + "/silero_vad_16k.safetensors"))
        await #expect(throws: StoreError.missingFile(file: "silero_vad.onnx")) {
            try await store.importModel(id: "silero-vad-v6", from: source)
        }
        let pinned = Catalog.pinned.first { $0.id == "efficientnet-lite0" }!
        await #expect(throws: StoreError.sizeMismatch(file: pinned.files[0].name, expected: pinned.files[0].bytes!, actual: 1)) {
            try await store.importModel(id: "efficientnet-lite0", from: source + "/silero_vad_16k.safetensors")
        }
        #expect(try await store.get("efficientnet-lite0").state == .absent)
    }

    @Test func `a Piper voice file imports with the config beside it, or names what is missing`() async throws {
        let fixture = try StoreFixture()
        let folder = try TemporaryDirectory()
        let source = folder.path
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: source + "/en_US-joe-medium.onnx"))
        let store = try fixture.store()
        await #expect(throws: StoreError.missingFile(file: "en_US-joe-medium.onnx.json")) {
            try await store.importModel(id: "joe", from: source + "/en_US-joe-medium.onnx")
        }
        try Data("{}".utf8).write(to: URL(fileURLWithPath: source + "/en_US-joe-medium.onnx.json"))
        try Data([7]).write(to: URL(fileURLWithPath: source + "/unrelated.txt"))
        let model = try await store.importModel(id: "joe", from: source + "/en_US-joe-medium.onnx")
        #expect(model.entry.kind == .tts, "a .onnx with its config is a voice unless told otherwise")
        #expect(model.entry.files.map(\.name) == ["en_US-joe-medium.onnx", "en_US-joe-medium.onnx.json"])
        #expect(model.entry.files.map(\.sha256) == [SHA256.hex(of: [1, 2, 3]), SHA256.hex(of: Array("{}".utf8))])
        // Used where it lies: the same two files, nothing copied.
        let inPlace = try #require(try InstalledModel.inPlace(source + "/en_US-joe-medium.onnx", kind: .tts))
        #expect(inPlace.entry.kind == .tts && inPlace.directory == source)
        #expect(inPlace.filePaths == [source + "/en_US-joe-medium.onnx", source + "/en_US-joe-medium.onnx.json"])
        #expect(try InstalledModel.inPlace(source + "/unrelated.txt", kind: .tts) == nil)
        #expect(try InstalledModel.inPlace(source + "/absent.onnx", kind: .tts) == nil)
        // A folder offers its files to the kind's engine, which picks what it reads.
        let whole = try #require(try InstalledModel.inPlace(source, kind: .vision))
        #expect(whole.entry.id == source && whole.directory == source && whole.entry.kind == .vision)
        #expect(whole.entry.files.map(\.name) == ["en_US-joe-medium.onnx", "en_US-joe-medium.onnx.json", "unrelated.txt"])
        // Only a voice needs its config beside it: another kind's .onnx is the network alone.
        #expect(try InstalledModel.inPlace(source + "/en_US-joe-medium.onnx", kind: .vision)?.entry.files.map(\.name) == ["en_US-joe-medium.onnx"])
        // The pinned voice takes its files from the folder and checks each against its digest.
        await #expect(throws: StoreError.self) {
            try await store.importModel(id: "piper-en_US-joe-medium", from: source + "/en_US-joe-medium.onnx")
        }
    }

    @Test func `storage, last use and delete`() async throws {
        let fixture = try StoreFixture()
        let store = try fixture.store(fixture.configuration(freeBytes: 1 << 40))
        try await store.register(fixture.model(files: [("w.bin", sampleBytes(10_000))]))
        #expect(await store.storage().models.isEmpty)
        _ = try await store.pull("test-model")
        let report = await store.storage()
        #expect(report.models.map(\.entry.id) == ["test-model"] && report.totalBytes == 10_000 && report.freeBytes == 1 << 40)
        #expect(report.models[0].lastUsed != nil)
        #expect(try await store.delete("test-model"))
        #expect(!FileSystem.exists(fixture.modelDirectory()))
        #expect(try await store.get("test-model").state == .absent)
        #expect(try await store.delete("test-model") == false)
    }

    @Test func `pull events stream progress then the installed model`() async throws {
        let fixture = try StoreFixture()
        let body = sampleBytes(50_000)
        let store = try fixture.store()
        try await store.register(fixture.model(files: [("w.bin", body)]))
        var sawProgress = false
        var installed: InstalledModel?
        for try await event in store.pullEvents("test-model") {
            switch event {
            case .progress(let progress): sawProgress = sawProgress || progress.receivedBytes > 0
            case .installed(let model): installed = model
            }
        }
        #expect(sawProgress && installed?.directory == fixture.modelDirectory())
    }

    @Test func `prefetch goes through the op mapping into the runtime's layout`() async throws {
        let fixture = try StoreFixture()
        let vad = Catalog.pinned.first { $0.id == Op.vad.defaultModelId }!
        // Nothing is served: the 404 shows which URL the op's model resolved to.
        let store = try fixture.store(fixture.configuration(freeBytes: 1 << 40))
        let expected = vad.files.map { fixture.server.baseURL.absoluteString + "/snakers4/silero-vad/resolve/v6.2.3/" + $0.sourcePath }
        let manifest = try PrefetchManifest.parse(Data(#"{"ops": ["vad"]}"#.utf8))
        var failure: StoreError?
        do { _ = try await store.prefetch(manifest) } catch { failure = error }
        if case .http(let status, let url)? = failure {
            #expect(status == 404 && expected.contains(url))
        } else {
            Issue.record("expected a 404, got \(String(describing: failure))")
        }
        #expect(try await store.resolve(Op.vad.defaultModelId) == nil)
        #expect(fixture.sleeper.recorded.isEmpty)
        await #expect(throws: StoreError.unknownModel(id: "not-a-model")) {
            try await store.prefetch(PrefetchManifest(ops: [.vad], extraModelIds: ["not-a-model"]))
        }
    }
}
