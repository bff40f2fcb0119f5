import Foundation
import ModelStore
import OnDevice
import Platform
import Testing
import TestSupport

/// `prefetch(_:)` through the public API: the op's pinned model is fetched from a hub (here a
/// loopback server holding the installed files) into an empty store and verified against the
/// catalog's digests, with progress; a second call downloads nothing.
@Suite struct PrefetchOpsTests {
    @Test func `prefetch fetches an op's pinned model once, verified, with progress`() async throws {
        let installed = try #require(try await ModelStore().resolve("silero-vad-v6"), "models not installed: run scripts/setup.sh")
        guard case .huggingFace(let repo, let revision) = installed.entry.source else { Issue.record("not a hub model"); return }
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        var paths: [String] = []
        for file in installed.entry.files {
            let path = "/\(repo)/resolve/\(revision)/\(file.sourcePath)"
            server.serve(path: path, body: Array(try Data(contentsOf: URL(fileURLWithPath: installed.directory + "/" + file.name))))
            paths.append(path)
        }
        let home = try TemporaryDirectory(prefix: "ondevice-prefetch")
        defer { home.cleanup() }
        var c = OnDeviceAI.Configuration()
        c.storeRoot = home.path
        c.hubEndpoint = server.baseURL
        let ai = OnDeviceAI(configuration: c)

        let received = Locked<Int64>(0)
        #expect(try await ai.prefetch([.detectSpeech]) { p in received.withLock { $0 = max($0, p.receivedBytes) } } == ["silero-vad-v6"])
        let total = installed.entry.files.reduce(Int64(0)) { $0 + ($1.bytes ?? 0) }
        #expect(received.withLock { $0 } == total)
        #expect(paths.reduce(0) { $0 + server.bytesSent(for: $1) } == Int(total))
        // Now installed where the runtime looks: a second prefetch and a detectSpeech fetch nothing.
        #expect(try await ai.prefetch([.detectSpeech]) == ["silero-vad-v6"])
        #expect(paths.reduce(0) { $0 + server.bytesSent(for: $1) } == Int(total))
        #expect(try await ai.prefetch([]) == [])
    }

    @Test func `a file that fails its pinned digest is a typed error and nothing is installed`() async throws {
        let installed = try #require(try await ModelStore().resolve("silero-vad-v6"), "models not installed: run scripts/setup.sh")
        guard case .huggingFace(let repo, let revision) = installed.entry.source else { Issue.record("not a hub model"); return }
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        for file in installed.entry.files {
            var body = Array(try Data(contentsOf: URL(fileURLWithPath: installed.directory + "/" + file.name)))
            body[body.count / 2] ^= 0x01  // same size, one bit off
            server.serve(path: "/\(repo)/resolve/\(revision)/\(file.sourcePath)", body: body)
        }
        let home = try TemporaryDirectory(prefix: "ondevice-prefetch")
        defer { home.cleanup() }
        var c = OnDeviceAI.Configuration()
        c.storeRoot = home.path
        c.hubEndpoint = server.baseURL
        let ai = OnDeviceAI(configuration: c)
        do {
            try await ai.prefetch([.detectSpeech])
            Issue.record("a corrupted model was installed")
        } catch let error as OnDeviceError {
            guard error.code == .downloadFailed, let reason = error.reason else { Issue.record("wrong error \(error)"); return }
            #expect(error.model == "silero-vad-v6")
            #expect(reason.contains("sha256") || reason.contains("checksum"), "\(reason)")
        }
        let store = try ModelStore(configuration: StoreConfiguration(root: home.path))
        #expect(try await store.resolve("silero-vad-v6") == nil)
    }
}
