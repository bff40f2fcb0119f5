import Foundation
import Testing
import ModelStore
import TestSupport

/// Pulls against a loopback server that misbehaves on purpose.
struct DownloadFaultTests {
    let body = sampleBytes(300_000)

    private func setUp(_ fixture: StoreFixture, configuration: StoreConfiguration? = nil) async throws -> (ModelStore, CatalogEntry) {
        let store = try fixture.store(configuration)
        let entry = fixture.model(files: [("weights.bin", body)], headers: ["ETag": "\"v1\""])
        try await store.register(entry)
        return (store, entry)
    }

    @Test func `a clean pull installs into repo, revision and variant and reports progress`() async throws {
        let fixture = try StoreFixture()
        let (store, _) = try await setUp(fixture)
        let events = EventLog()
        let model = try await store.pull("test-model") { events.append($0) }
        #expect(model.filePaths == [fixture.modelDirectory() + "/weights.bin"])
        #expect(contents(model.filePaths[0]) == body)
        #expect(events.last?.receivedBytes == Int64(body.count) && events.last?.totalBytes == Int64(body.count))
        #expect(try await store.resolve("test-model")?.directory == fixture.modelDirectory())
        #expect(!FileSystem.exists(fixture.root + "/.staging/org/repo/main/v"))
    }

    @Test func `a dropped connection resumes without re-downloading received bytes`() async throws {
        let fixture = try StoreFixture()
        let (store, _) = try await setUp(fixture)
        let path = fixture.path(file: "weights.bin")
        fixture.server.inject([.dropAfter(bytes: 120_000), .dropAfter(bytes: 50_000)], for: path)
        let model = try await store.pull("test-model")
        #expect(contents(model.filePaths[0]) == body)
        #expect(fixture.server.bytesSent(for: path) == body.count)
        let ranges = fixture.server.requests(for: path).map { $0.headers["range"] }
        #expect(ranges == [nil, "bytes=120000-", "bytes=170000-"])
        #expect(fixture.server.requests(for: path)[1].headers["if-range"] == "\"v1\"")
        #expect(fixture.sleeper.recorded.count == 2)
    }

    @Test func `a 500 is retried after a jittered backoff`() async throws {
        let fixture = try StoreFixture()
        let (store, _) = try await setUp(fixture)
        fixture.server.inject([.status(500), .status(503)], for: fixture.path(file: "weights.bin"))
        _ = try await store.pull("test-model")
        let delays = fixture.sleeper.recorded
        #expect(delays.count == 2)
        // Policy base 0.5 s: retry 1 waits in [0.25, 0.5], retry 2 in [0.5, 1.0].
        #expect((0.25...0.5).contains(delays[0]) && (0.5...1.0).contains(delays[1]))
    }

    @Test func `a 429 waits as long as Retry-After says`() async throws {
        let fixture = try StoreFixture()
        let (store, _) = try await setUp(fixture)
        fixture.server.inject([.status(429, retryAfter: "7")], for: fixture.path(file: "weights.bin"))
        _ = try await store.pull("test-model")
        #expect(fixture.sleeper.recorded == [7])
    }

    @Test func `a server that ignores Range restarts the file from zero`() async throws {
        let fixture = try StoreFixture()
        let (store, _) = try await setUp(fixture)
        let path = fixture.path(file: "weights.bin")
        fixture.server.inject([.dropAfter(bytes: 100_000), .ignoreRange], for: path)
        let model = try await store.pull("test-model")
        #expect(contents(model.filePaths[0]) == body)
        #expect(fixture.server.requests(for: path)[1].headers["range"] == "bytes=100000-")
        #expect(fixture.server.bytesSent(for: path) == 100_000 + body.count)
    }

    @Test func `a body shorter than its Content-Length is resumed, not installed`() async throws {
        let fixture = try StoreFixture()
        let (store, _) = try await setUp(fixture)
        let path = fixture.path(file: "weights.bin")
        fixture.server.inject([.truncate(bytes: 200_000)], for: path)
        let model = try await store.pull("test-model")
        #expect(contents(model.filePaths[0]) == body)
        #expect(fixture.server.bytesSent(for: path) == body.count)
    }

    @Test func `wrong bytes fail the checksum and install nothing`() async throws {
        let fixture = try StoreFixture()
        let (store, entry) = try await setUp(fixture)
        fixture.server.inject([.wrongBytes], for: fixture.path(file: "weights.bin"))
        await #expect(throws: StoreError.checksumMismatch(file: "weights.bin", expected: entry.files[0].sha256!,
                                                          actual: SHA256.hex(of: body.map { $0 ^ 0x5a }))) {
            try await store.pull("test-model")
        }
        #expect(!FileSystem.exists(fixture.modelDirectory()))
        #expect(try await store.resolve("test-model") == nil)
        #expect(!FileSystem.exists(fixture.root + "/.staging/org/repo/main/v/weights.bin.partial"))
    }

    @Test func `a stalled connection times out and the retry resumes`() async throws {
        let fixture = try StoreFixture()
        let (store, _) = try await setUp(fixture, configuration: fixture.configuration(stallTimeout: 0.3))
        let path = fixture.path(file: "weights.bin")
        fixture.server.inject([.stall(afterBytes: 64_000, seconds: 60)], for: path)
        let model = try await store.pull("test-model")
        // The 60 s stall was cut short by the 0.3 s stall timeout: one backoff sleep, one resumed
        // request, every byte sent exactly once. (No wall-clock bound: timings are for benchmarks.)
        #expect(contents(model.filePaths[0]) == body)
        #expect(fixture.server.bytesSent(for: path) == body.count)
        #expect(fixture.sleeper.recorded.count == 1)
    }

    @Test func `a cancelled pull resumes where it stopped`() async throws {
        let fixture = try StoreFixture()
        // The stall outlasts any delay in scheduling this test's cancellation on a loaded
        // two-thread pool (it ends when the client closes); the client never times it out.
        let (store, _) = try await setUp(fixture, configuration: fixture.configuration(stallTimeout: 900))
        let path = fixture.path(file: "weights.bin")
        fixture.server.inject([.stall(afterBytes: 80_000, seconds: 900)], for: path)
        let task = Task { try await store.pull("test-model") }
        while fixture.server.bytesSent(for: path) < 80_000 { try await Task.sleep(for: .milliseconds(5)) }
        try await Task.sleep(for: .milliseconds(50))
        task.cancel()
        await #expect(throws: StoreError.cancelled) { try await task.value }
        #expect(!FileSystem.exists(fixture.modelDirectory()))
        let events = EventLog()
        _ = try await store.pull("test-model") { events.append($0) }
        // Progress counts the resumed bytes as received from the first event on.
        #expect(events.all.first.map { $0.receivedBytes >= 80_000 } == true)
        #expect(events.last?.receivedBytes == Int64(body.count))
        #expect(fixture.server.requests(for: path).last?.headers["range"] == "bytes=80000-")
        #expect(fixture.server.bytesSent(for: path) == body.count)
    }

    @Test func `a full disk fails before downloading and leaves no model`() async throws {
        let fixture = try StoreFixture()
        let (store, _) = try await setUp(fixture, configuration: fixture.configuration(freeBytes: 1000))
        await #expect(throws: StoreError.insufficientStorage(needed: Int64(body.count), free: 1000)) {
            try await store.pull("test-model")
        }
        #expect(fixture.server.bytesSent(for: fixture.path(file: "weights.bin")) == 0)
        #expect(!FileSystem.exists(fixture.modelDirectory()))
        #expect(try await store.get("test-model").state == .absent)
    }

    @Test func `a 404 is not retried`() async throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        var entry = fixture.model(files: [("weights.bin", body)])
        entry.files[0].sourcePath = "missing.bin"
        try await store.register(entry)
        await #expect(throws: StoreError.http(status: 404, url: fixture.server.baseURL.absoluteString + fixture.path(file: "missing.bin"))) {
            try await store.pull("test-model")
        }
        #expect(fixture.sleeper.recorded.isEmpty)
    }
}

/// Collects progress events from transport threads.
final class EventLog: Sendable {
    private let events = Locked([PullProgress]())
    func append(_ event: PullProgress) { events.withLock { $0.append(event) } }
    var all: [PullProgress] { events.withLock { $0 } }
    var last: PullProgress? { all.last }
}

import Platform

struct DownloadSizeTests {
    @Test func `a body of the wrong size is refused from its head, not downloaded`() async throws {
        let fixture = try StoreFixture()
        let store = try fixture.store()
        var entry = fixture.model(files: [("w.bin", sampleBytes(100_000))])
        entry.files[0].bytes = 99_999
        try await store.register(entry)
        let events = EventLog()
        await #expect(throws: StoreError.sizeMismatch(file: "w.bin", expected: 99_999, actual: 100_000)) {
            try await store.pull("test-model") { events.append($0) }
        }
        #expect(events.all.isEmpty)  // not one body byte was written
        #expect(!FileSystem.exists(fixture.modelDirectory()))
    }
}
