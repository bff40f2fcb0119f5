import Foundation
import ModelStore
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Issue 3: "`ondevice models pull` killed with SIGKILL mid-download and run again resumes and
/// installs a verified model". The hub sends part of the file and then goes silent, so the kill
/// lands mid-download deterministically; the server's byte count shows what the rerun fetched.
@Suite struct PullResumeCLITests {
    @Test func `a pull killed with SIGKILL resumes from its partial file and installs a verified model`() async throws {
        let f = try StoreCLIFixture()
        let body = fakeGGUF(6 << 20, seed: 9)
        let sha = SHA256.hex(of: body)
        let path = f.hubPath(repo: "org/big", file: "big.gguf")
        f.server.serve(path: path, body: body, headers: ["ETag": "\"big-v1\""])
        let firstRun = 2 << 20
        f.server.inject([.stall(afterBytes: firstRun, seconds: 120)], for: path)
        let args = ["models", "pull", "hf:org/big/big.gguf", "--sha256", sha, "--json"]
        let partial = f.home.path + "/.staging/org/big/main/big/big.gguf.partial"

        let first = try f.start(args, name: "first")
        let reached = f.wait(seconds: 60) { (StoreCLIFixture.size(partial) ?? 0) >= firstRun }
        kill(first.processIdentifier, SIGKILL)
        first.waitUntilExit()
        try #require(reached, "the first run never wrote \(firstRun) bytes to \(partial)")
        #expect(first.terminationReason == .uncaughtSignal)
        #expect(first.terminationStatus == SIGKILL)
        // Killed mid-file: nothing installed, the received bytes kept for the next run.
        #expect(!FileManager.default.fileExists(atPath: f.home.path + "/org/big/main/big"))
        let kept = try #require(StoreCLIFixture.size(partial))
        #expect(kept == firstRun)
        let servedBefore = f.server.bytesSent(for: path)

        let second = try await f.json(args)
        #expect(second.string("event") == "installed")
        // Only the missing bytes crossed the wire, asked for by a Range from the kept length.
        #expect(f.server.bytesSent(for: path) - servedBefore == body.count - kept)
        let requests = f.server.requests(for: path)
        #expect(requests.count == 2)
        #expect(requests.last?.headers["range"] == "bytes=\(kept)-")
        #expect(requests.last?.headers["if-range"] == "\"big-v1\"")

        let directory = second.string("directory")
        #expect(FileManager.default.contents(atPath: directory + "/big.gguf") == Data(body))
        #expect(!FileManager.default.fileExists(atPath: partial))
        let info = try await f.json(["models", "info", "big", "--verify", "--json"])
        #expect(info.object("validation")["valid"] as? Bool == true)
        #expect((info.object("validation")["bytes_hashed"] as? NSNumber)?.intValue == body.count)
        #expect(info.objects("files").first?.string("sha256") == sha)
    }

    @Test func `json progress events count the resumed bytes and end at the total`() async throws {
        let f = try StoreCLIFixture()
        let body = fakeGGUF(3 << 20, seed: 10)
        let path = f.hubPath(repo: "org/events", file: "e.gguf")
        f.server.serve(path: path, body: body)
        f.server.inject([.dropAfter(bytes: 1 << 20)], for: path)  // one retry mid-file
        let out = try await f.run(["models", "pull", "hf:org/events/e.gguf", "--sha256", SHA256.hex(of: body), "--json"])
        #expect(out.status == 0, "\(out.stderr)")
        let events = out.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let progress = events.filter { $0.string("event") == "progress" }
        #expect(!progress.isEmpty)
        let received = progress.compactMap { ($0["received_bytes"] as? NSNumber)?.intValue }
        #expect(received.last == body.count)
        #expect(zip(received, received.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(events.last?.string("event") == "installed")
        #expect(f.server.bytesSent(for: path) == body.count)  // the retry resumed, it did not restart
    }
}
