import Foundation
import Platform
import Testing
import ModelStore
import TestSupport

/// Records retry delays instead of sleeping, so backoff tests run instantly.
final class RecordingSleeper: Sleeping {
    private let delays = Locked([Double]())
    var recorded: [Double] { delays.withLock { $0 } }
    func sleep(seconds: Double) async throws(StoreError) {
        delays.withLock { $0.append(seconds) }
        if Task.isCancelled { throw .cancelled }
    }
}

/// A free-space probe that reports a fixed number of bytes.
struct FakeFreeSpace: FreeSpaceProbing {
    var bytes: Int64
    func freeBytes(at path: String) -> Int64? { bytes }
}

/// Deterministic pseudo-random bytes (xorshift), so failures reproduce.
func sampleBytes(_ count: Int, seed: UInt64 = 0x9e3779b97f4a7c15) -> [UInt8] {
    var state = seed
    var out = [UInt8](repeating: 0, count: count)
    for i in 0..<count {
        state ^= state << 13; state ^= state >> 7; state ^= state << 17
        out[i] = UInt8(truncatingIfNeeded: state)
    }
    return out
}

/// A temporary store root, a loopback server and helpers to build test models on it.
final class StoreFixture: Sendable {
    let root: String
    let server: LoopbackHTTPServer
    let sleeper = RecordingSleeper()

    init() throws {
        var template = Array((NSTemporaryDirectory() + "/ondevice-store-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw StoreError.io(path: "mkdtemp", errno: errno) }
        root = String(cString: made)
        server = try LoopbackHTTPServer()
    }

    deinit {
        server.stop()
        FileSystem.removeTree(root)
    }

    func configuration(stallTimeout: Double = 2, freeBytes: Int64? = nil, fetcher: (any HTTPFetching)? = nil,
                       token: String? = nil) -> StoreConfiguration {
        StoreConfiguration(root: root, hfEndpoint: server.baseURL, hfToken: token,
                           fetcher: fetcher ?? SchemeRoutingFetcher(), retry: RetryPolicy(maxAttempts: 5),
                           sleeper: sleeper, freeSpace: freeBytes.map { FakeFreeSpace(bytes: $0) } ?? StatvfsFreeSpace(),
                           stallTimeout: stallTimeout, progressInterval: 0)
    }

    func store(_ configuration: StoreConfiguration? = nil) throws -> ModelStore {
        try ModelStore(configuration: configuration ?? self.configuration())
    }

    /// URL path the store asks for a file of `org/<repo>` at `main`.
    func path(repo: String = "org/repo", file: String) -> String { "/\(repo)/resolve/main/\(file)" }

    /// Serves `files` and returns a matching entry (sizes and digests pinned).
    func model(id: String = "test-model", repo: String = "org/repo", files: [(String, [UInt8])],
               headers: [String: String] = [:]) -> CatalogEntry {
        for (name, body) in files { server.serve(path: path(repo: repo, file: name), body: body, headers: headers) }
        return .huggingFace(id: id, kind: .llm, license: "test", repo: repo, revision: "main", variant: "v",
                            files: files.map { ModelFile(name: $0.0, bytes: Int64($0.1.count), sha256: SHA256.hex(of: $0.1), sourcePath: $0.0) })
    }

    func modelDirectory(repo: String = "org/repo") -> String { "\(root)/\(repo)/main/v" }
}

func contents(_ path: String) -> [UInt8]? { FileSystem.readData(path).map { [UInt8]($0) } }
