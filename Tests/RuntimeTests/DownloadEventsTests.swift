import ModelStore
import Runtime
import Testing

/// First-use downloads report start, progress, finish and failure on the event bus, and
/// concurrent requests for one model share one pull.
@Suite struct DownloadEventsTests {
    let fixture: RuntimeFixture
    init() throws { fixture = try RuntimeFixture() }

    @Test func `a pull publishes start, progress and finish, and two callers share it`() async throws {
        let (entry, bytes) = fixture.tinyModel("tiny")
        let runtime = try await fixture.runtime(fixture.dependencies(), models: [entry])
        let events = runtime.subscribe()
        async let first = runtime.downloads.installed("tiny")
        async let second = runtime.downloads.installed("tiny")
        let (a, b) = try await (first, second)
        #expect(a == b)
        var progress: [Int64] = []
        var started = 0
        for await event in events {
            switch event {
            case .downloadStarted(let id, let total):
                started += 1
                #expect(id == "tiny" && total == Int64(bytes.count))
            case .downloadProgress(let p): progress.append(p.receivedBytes)
            case .downloadFinished: break
            default: continue
            }
            if case .downloadFinished = event { break }
        }
        #expect(started == 1)
        #expect(progress.last == Int64(bytes.count) && progress == progress.sorted())
        #expect(fixture.server.requests(for: "/org/tiny/resolve/main/model.gguf").count == 1)
    }

    @Test func `a failed pull publishes the store's error and throws it`() async throws {
        let (entry, _) = fixture.tinyModel("tiny")
        fixture.server.inject([.status(404), .status(404)], for: "/org/tiny/resolve/main/model.gguf")
        let runtime = try await fixture.runtime(fixture.dependencies(), models: [entry])
        let events = runtime.subscribe()
        await #expect(throws: RuntimeError.self) { try await runtime.downloads.installed("tiny") }
        let failed = await nextEvent(events) { if case .downloadFailed = $0 { true } else { false } }
        guard case .downloadFailed("tiny", .store(let error))? = failed else {
            Issue.record("no downloadFailed event: \(String(describing: failed))")
            return
        }
        #expect(error == .http(status: 404, url: fixture.server.baseURL.absoluteString + "/org/tiny/resolve/main/model.gguf"))
        #expect(!runtime.downloads.isDownloading("tiny"))
    }
}
