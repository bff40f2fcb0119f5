import Foundation
import Testing
import ModelStore
import TestSupport

/// Pulls in other processes: this test binary re-runs itself with a filter that selects the
/// `child pull` entry point, which is enabled only in such a child.
struct CrossProcessTests {
    static let childVariable = "ONDEVICE_STORE_CHILD_PULL"
    /// The child's stall timeout, for a child that must still be stalled whenever the parent
    /// (on a loaded machine, perhaps much later) gets to kill it.
    static let stallTimeoutVariable = "ONDEVICE_STORE_CHILD_STALL_TIMEOUT"

    /// Child entry point: pulls the model named in the environment with a store configured the way
    /// the CLI configures one (`ONDEVICE_HOME`, `HF_ENDPOINT`).
    @Test(.enabled(if: ProcessInfo.processInfo.environment[childVariable] != nil))
    func `child pull`() async throws {
        let environment = ProcessInfo.processInfo.environment
        let id = environment[Self.childVariable]!
        var configuration = StoreConfiguration.fromEnvironment()
        if let seconds = environment[Self.stallTimeoutVariable].flatMap(Double.init) { configuration.stallTimeout = seconds }
        let store = try ModelStore(configuration: configuration)
        _ = try await store.pull(id)
    }

    private func spawnPull(_ fixture: StoreFixture, id: String, stallTimeout: Double? = nil) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = ["--testing-library", "swift-testing", "--filter", "child pull"]
        var environment = ProcessInfo.processInfo.environment
        environment[Self.childVariable] = id
        environment[Self.stallTimeoutVariable] = stallTimeout.map { String($0) }
        environment["ONDEVICE_HOME"] = fixture.root
        environment["HF_ENDPOINT"] = fixture.server.baseURL.absoluteString
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    @Test func `two processes pulling one model end with one verified copy`() async throws {
        let fixture = try StoreFixture()
        let body = sampleBytes(200_000)
        let store = try fixture.store()
        try await store.register(fixture.model(files: [("w.bin", body)]))
        let path = fixture.path(file: "w.bin")
        // Slow the first transfer so the second process arrives while the first holds the lock.
        fixture.server.inject([.stall(afterBytes: 10_000, seconds: 0.5)], for: path)
        let children = try [spawnPull(fixture, id: "test-model"), spawnPull(fixture, id: "test-model")]
        for child in children { child.waitUntilExit() }
        #expect(children.map(\.terminationStatus) == [0, 0])
        #expect(fixture.server.bytesSent(for: path) == body.count)
        let report = try await store.validate("test-model", force: true)
        #expect(report.isValid)
    }

    @Test func `a pull killed with SIGKILL resumes in the next process`() async throws {
        let fixture = try StoreFixture()
        let body = sampleBytes(200_000)
        let store = try fixture.store()
        try await store.register(fixture.model(files: [("w.bin", body)]))
        let path = fixture.path(file: "w.bin")
        // The stall (and the child's patience with it) outlasts any wait below and ends when the
        // killed child's socket closes: on a loaded machine neither the child's start nor this
        // task's wake-ups are prompt, so the test waits for the state it needs (90,000 bytes on
        // disk) instead of for a time.
        fixture.server.inject([.stall(afterBytes: 90_000, seconds: 3_600)], for: path)
        let child = try spawnPull(fixture, id: "test-model", stallTimeout: 3_600)
        let partial = fixture.root + "/.staging/org/repo/main/v/w.bin.partial"
        let deadline = ContinuousClock.now + .seconds(600)  // only a broken pull gets here
        while FileSystem.fileSize(partial) != 90_000 && child.isRunning && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(child.isRunning, "the child ended before it was killed")
        kill(child.processIdentifier, SIGKILL)
        child.waitUntilExit()
        #expect(child.terminationReason == .uncaughtSignal)
        #expect(try await store.resolve("test-model") == nil)
        #expect(FileSystem.fileSize(partial) == 90_000)
        // The killed process's lock died with it; the next pull resumes at byte 90,000.
        let next = try spawnPull(fixture, id: "test-model")
        next.waitUntilExit()
        #expect(next.terminationStatus == 0)
        #expect(fixture.server.requests(for: path).last?.headers["range"] == "bytes=90000-")
        #expect(fixture.server.bytesSent(for: path) == body.count)
        #expect(try await store.validate("test-model", force: true).isValid)
    }
}
