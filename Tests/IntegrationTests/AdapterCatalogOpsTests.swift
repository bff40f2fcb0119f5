import Foundation
import ModelStore
import OnDevice
import Platform
import Testing
import TestSupport

/// The LoRA lifecycle through the public API, offline: register an adapter for a model, query
/// the catalog, download it from a loopback hub, apply it by id, remove it; an adapter that does
/// not fit its model is refused and not kept.
@Suite struct AdapterCatalogOpsTests {
    final class Fixture {
        let home: TemporaryDirectory
        let server: LoopbackHTTPServer
        let base = TinyModel().writer()
        let ai: OnDeviceAI

        init() async throws {
            home = try TemporaryDirectory(prefix: "ondevice-adapters")
            server = try LoopbackHTTPServer()
            let file = try base.write(in: home, name: "tiny-source.gguf")
            let store = try ModelStore(configuration: StoreConfiguration(root: home.path + "/store"))
            _ = try await store.importModel(id: "tiny", from: file)
            var c = OnDeviceAI.Configuration()
            c.storeRoot = home.path + "/store"
            c.hubEndpoint = server.baseURL
            c.textModel = "tiny"
            c.threads = 1
            ai = OnDeviceAI(configuration: c)
        }

        deinit { server.stop(); home.cleanup() }

        func serve(_ writer: GGUFWriter, repo: String, file: String) -> [UInt8] {
            let bytes = writer.bytes()
            server.serve(path: "/\(repo)/resolve/main/\(file)", body: bytes)
            return bytes
        }
    }

    @Test func `a registered adapter is listed for its model, downloaded, applied by id and removed`() async throws {
        let f = try await Fixture()
        let bytes = f.serve(GGUFWriter.loraAdapter(for: f.base, rank: 2, alpha: 4, seed: 9), repo: "org/pirate", file: "pirate.gguf")

        let registered = try await f.ai.registerAdapter("pirate", for: "tiny", from: .huggingFace(repo: "org/pirate", file: "pirate.gguf"))
        #expect(registered.baseModel == "tiny" && !registered.isInstalled && registered.path == nil)
        #expect(try await f.ai.adapters(for: "tiny").map(\.id) == ["pirate"])
        #expect(try await f.ai.adapters(for: "another-model").isEmpty)

        let received = Counter()
        let installed = try await f.ai.downloadAdapter("pirate") { received.set($0.receivedBytes) }
        #expect(installed.isInstalled)
        #expect(installed.sha256 == SHA256.hex(of: bytes))
        #expect(installed.bytes == Int64(bytes.count))
        #expect(received.value == Int64(bytes.count))
        let path = try #require(installed.path)
        #expect(FileManager.default.contents(atPath: path) == Data(bytes))

        var options = TextOptions.greedy
        options.maxTokens = 2
        options.adapters = [try await f.ai.adapter("pirate", scale: 0.5)]
        _ = try await f.ai.generate("hello", options: options)
        #expect(try await f.ai.loadedAdapters().map(\.path) == [path])

        try await f.ai.removeAdapter("pirate")
        #expect(try await f.ai.loadedAdapters().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(try await f.ai.adapters(for: "tiny").map(\.isInstalled) == [false])
        await #expect(throws: OnDeviceError.self) { _ = try await f.ai.adapter("pirate") }
    }

    @Test func `an adapter that does not fit its model is refused at download and at import, and not kept`() async throws {
        let f = try await Fixture()
        let wrong = GGUFWriter.loraAdapter(for: f.base, rank: 2, alpha: 4, seed: 9, architecture: "gemma3")
        _ = f.serve(wrong, repo: "org/wrong", file: "wrong.gguf")
        try await f.ai.registerAdapter("wrong", for: "tiny", from: .huggingFace(repo: "org/wrong", file: "wrong.gguf"))
        do {
            try await f.ai.downloadAdapter("wrong")
            Issue.record("a gemma3 adapter was installed for a llama model")
        } catch let error as OnDeviceError {
            guard error.code == .adapterUnusable, let reason = error.reason else { Issue.record("wrong error \(error)"); return }
            #expect(error.path == "wrong")
            #expect(reason.contains("does not fit 'tiny'"), "\(reason)")
        }
        #expect(try await f.ai.adapters(for: "tiny").first?.isInstalled == false)

        let local = try wrong.write(in: f.home, name: "wrong-local.gguf")
        await #expect(throws: OnDeviceError.self) { try await f.ai.importAdapter(at: local, id: "wrong-local", for: "tiny") }
        let good = try GGUFWriter.loraAdapter(for: f.base, rank: 3, alpha: 3, seed: 4).write(in: f.home, name: "good.gguf")
        let imported = try await f.ai.importAdapter(at: good, id: "good", for: "tiny")
        #expect(imported.isInstalled && imported.baseModel == "tiny")
        // Registering for a model the catalog does not know is refused.
        await #expect(throws: OnDeviceError.self) {
            try await f.ai.registerAdapter("x", for: "no-such-model", from: .huggingFace(repo: "org/x", file: "x.gguf"))
        }
    }
}

/// The last value a progress callback reported, readable after the call returns.
final class Counter: Sendable {
    private let last = Locked<Int64>(0)
    func set(_ v: Int64) { last.withLock { $0 = v } }
    var value: Int64 { last.withLock { $0 } }
}
