import Foundation
import ModelStore
import OnDevice
import Platform
import Testing
import TestSupport

/// The model store through the public API, offline: register a model from a loopback hub,
/// download it with progress, read it back, validate, measure, remove; and the typed errors a
/// bad id, a wrong digest and a second removal give.
@Suite struct ModelLibraryTests {
    final class Fixture {
        let home: TemporaryDirectory
        let server: LoopbackHTTPServer
        let ai: OnDeviceAI
        let body = TinyModel().writer().bytes()

        init() throws {
            home = try TemporaryDirectory(prefix: "ondevice-library")
            server = try LoopbackHTTPServer()
            server.serve(path: "/org/tiny/resolve/main/tiny.gguf", body: body)
            var c = OnDeviceAI.Configuration()
            c.storeRoot = home.path + "/store"
            c.hubEndpoint = server.baseURL
            ai = OnDeviceAI(configuration: c)
        }

        deinit { server.stop(); home.cleanup() }
    }

    @Test func `a registered model downloads with progress, validates, is measured and removed`() async throws {
        let f = try Fixture()
        let library = try await f.ai.modelLibrary()
        #expect(library.root == f.home.path + "/store")

        let source = try #require(try DownloadSource("hf:org/tiny/tiny.gguf"))
        #expect(source == .huggingFace(repo: "org/tiny", revision: "main", file: "tiny.gguf"))
        let id = try await library.register(source, kind: .llm)
        #expect(id == "tiny")
        #expect(try await library.info(id).state == .absent)
        #expect(try await library.info(id).totalBytes == nil)  // unknown until downloaded

        let received = Locked<Int64>(0)
        let model = try await library.download(id) { p in received.withLock { $0 = max($0, p.receivedBytes) } }
        #expect(received.withLock { $0 } == Int64(f.body.count))
        #expect(model.state == .installed && model.kind == .llm && !model.isPinned)
        #expect(model.files.map(\.sha256) == [SHA256.hex(of: f.body)])
        let path = try #require(model.firstPath(withSuffix: ".gguf"))
        #expect(FileManager.default.contents(atPath: path).map(Array.init) == f.body)

        // Registering the same source again keeps the digest the download pinned.
        #expect(try await library.register(source, kind: .llm) == id)
        #expect(try await library.info(id).files.first?.sha256 == SHA256.hex(of: f.body))

        let check = try await library.validate(id, rehash: true)
        #expect(check.isValid && check.bytesHashed == Int64(f.body.count))
        let listed = await library.list().filter { $0.state == .installed }.map(\.id)
        #expect(listed == [id])
        let storage = await library.storage()
        #expect(storage.models.map(\.id) == [id] && storage.totalBytes == Int64(f.body.count))

        // The weights header, read without loading the model.
        let tiny = TinyModel()
        let weights = try #require(try await library.weights(of: id))
        #expect(weights.file == model.weightsFile && weights.format == "gguf" && weights.architecture == tiny.architecture)
        #expect(weights.layerCount == tiny.layers && weights.embeddingLength == tiny.embedding && weights.headCount == tiny.heads)
        #expect(weights.contextLength == tiny.contextLength && weights.vocabularySize == tiny.tokens.count)
        #expect(weights.parameterCount > 0 && weights.modified != nil)

        // The text ops run it by id; while loaded the residency shows it, and unload lets it go.
        #expect(try await f.ai.capability(model: id).status == .ready)
        var options = TextOptions.greedy
        options.maxTokens = 2
        _ = try await f.ai.textModel(id).generate("hello", options: options, raw: true)
        let loaded = try #require(try await f.ai.residency().models.first { $0.id == id })
        #expect(!loaded.isLoading && loaded.leases == 0 && loaded.bytes > 0)
        #expect(try await f.ai.residency().usedBytes >= loaded.bytes)
        try await f.ai.unload(id)
        #expect(try await f.ai.residency().models.allSatisfy { $0.id != id })
        // Warmed ahead of use, it stays for the keep-alive asked for; 0 lets it go at once.
        try await f.ai.load(id, keepAliveSeconds: 120)
        let warm = try #require(try await f.ai.residency().models.first { $0.id == id })
        #expect(warm.leases == 0 && warm.bytes > 0)
        #expect((100...120).contains(warm.idleSecondsLeft ?? 0), "\(warm)")
        try await f.ai.unload(id)
        try await f.ai.load(id, keepAliveSeconds: 0)
        #expect(try await f.ai.residency().models.allSatisfy { $0.id != id })

        try await library.remove(id)
        #expect(try await library.info(id).state == .absent)
        do {
            try await library.remove(id)
            Issue.record("a second removal succeeded")
        } catch let error as OnDeviceError {
            #expect(error.code == .modelUnavailable && error.model == id)
            #expect(error.message == "model 'tiny' is not installed")
        }
    }

    @Test func `bad ids, unknown models and wrong digests are typed errors`() async throws {
        let f = try Fixture()
        let library = try await f.ai.modelLibrary()
        for (call, code) in [
            ({ _ = try await library.download("../evil") }, OnDeviceError.Code.invalidArgument),
            ({ _ = try await library.info("no-such-model") }, .modelUnavailable),
            ({ _ = try await library.download("no-such-model") }, .modelUnavailable),
            ({ _ = try DownloadSource("hf:org/repo/m.gguf", sha256: "xyz") }, .downloadFailed),
            ({ _ = try DownloadSource("https://example.invalid/m.gguf") }, .invalidArgument),
            ({ _ = try PrefetchPlan(models: ["../evil"]) }, .invalidArgument),
            ({ var plan = try PrefetchPlan(); try plan.add(operationNamed: "teleport") }, .invalidArgument),
        ] as [(() async throws -> Void, OnDeviceError.Code)] {
            do {
                try await call()
                Issue.record("no error, expected \(code)")
            } catch let error as OnDeviceError {
                #expect(error.code == code, "\(error)")
            }
        }
        // A wrong digest installs nothing, and says which file.
        let wrong = String(repeating: "ab", count: 32)
        let id = try await library.register(.huggingFace(repo: "org/tiny", file: "tiny.gguf", sha256: wrong), id: "wrong")
        do {
            _ = try await library.download(id)
            Issue.record("a file with the wrong digest was installed")
        } catch let error as OnDeviceError {
            #expect(error.code == .downloadFailed && error.model == "wrong", "\(error)")
            #expect(error.message.contains("tiny.gguf") && error.message.contains("expected \(wrong)"), "\(error)")
        }
        #expect(try await library.info(id).state != .installed)
    }

    @Test func `a prefetch plan names each operation's model, then the models given, once each`() throws {
        var plan = try PrefetchPlan(operations: [.summarize, .chat, .detectSpeech], models: ["whisper-base-ct2"])
        try plan.add(operationNamed: "generate")
        plan.add(.detectSpeech)
        #expect(plan.operations == [.summarize, .chat, .detectSpeech, .generate])
        #expect(plan.modelIds == [Capability.Operation.summarize.defaultModel, Capability.Operation.detectSpeech.defaultModel, "whisper-base-ct2"])
        #expect(Capability.Operation(name: "vad") == .detectSpeech && Capability.Operation.detectFaces.name == "faces")
    }
}
