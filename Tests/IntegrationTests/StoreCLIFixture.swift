import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A throwaway model store (`ONDEVICE_HOME`) and a loopback "hub" (`HF_ENDPOINT`) for running
/// `ondevice models …` and `ondevice prefetch` end to end, offline.
final class StoreCLIFixture {
    let home: TemporaryDirectory
    let work: TemporaryDirectory
    let server: LoopbackHTTPServer

    init() throws {
        home = try TemporaryDirectory(prefix: "ondevice-home")
        work = try TemporaryDirectory(prefix: "ondevice-work")
        server = try LoopbackHTTPServer()
    }

    deinit { server.stop() }

    /// The child's environment: this store and this server, no token from the outer shell.
    var environment: [String: String] {
        ["ONDEVICE_HOME": home.path, "HF_ENDPOINT": server.baseURL.absoluteString, "HF_TOKEN": ""]
    }

    /// URL path the store requests for `file` of `repo` at `revision`.
    func hubPath(repo: String, revision: String = "main", file: String) -> String { "/\(repo)/resolve/\(revision)/\(file)" }

    func run(_ args: [String]) async throws -> CLIRunner.Output {
        try await CLIRunner.run(args, environment: environment)
    }

    /// Runs and parses stdout's last line as a JSON object; fails the test on a non-zero exit.
    func json(_ args: [String], sourceLocation: SourceLocation = #_sourceLocation) async throws -> [String: Any] {
        let out = try await run(args)
        #expect(out.status == 0, "\(args): \(out.stderr)", sourceLocation: sourceLocation)
        let last = out.stdout.split(separator: "\n").last.map(String.init) ?? ""
        return try #require(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any],
                            "not a JSON object: \(out.stdout)", sourceLocation: sourceLocation)
    }

    /// Starts `ondevice` without waiting, stdout and stderr to files in the work directory.
    func start(_ args: [String], name: String) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: CLIRunner.executable)
        p.arguments = args
        p.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        _ = FileManager.default.createFile(atPath: work.file(name + ".out"), contents: nil)
        _ = FileManager.default.createFile(atPath: work.file(name + ".err"), contents: nil)
        p.standardOutput = FileHandle(forWritingAtPath: work.file(name + ".out"))
        p.standardError = FileHandle(forWritingAtPath: work.file(name + ".err"))
        try p.run()
        return p
    }

    /// Polls `condition` every 10 ms for up to `seconds`; true once it holds.
    func wait(seconds: Double, until condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            usleep(10_000)
        }
        return condition()
    }

    /// Size of a file, nil when absent.
    static func size(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue
    }
}

/// `count` deterministic bytes that start with the GGUF magic, so the store's header check passes
/// for a `.gguf` name (the rest is noise: these tests move bytes, they do not load models).
func fakeGGUF(_ count: Int, seed: UInt64) -> [UInt8] {
    var rng = SeededGenerator(seed: seed)
    var bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
    bytes.replaceSubrange(0..<4, with: Array("GGUF".utf8))
    return bytes
}

extension Dictionary where Key == String, Value == Any {
    func objects(_ key: String) -> [[String: Any]] { self[key] as? [[String: Any]] ?? [] }
    func object(_ key: String) -> [String: Any] { self[key] as? [String: Any] ?? [:] }
}
