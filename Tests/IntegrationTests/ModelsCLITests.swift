import Foundation
import ModelStore
import Testing
import TestSupport

/// `ondevice models …` end to end against a loopback hub: pull by `hf:` spec, list, info, du, rm,
/// import, and one-line errors.
@Suite struct ModelsCLITests {
    @Test func `pull by hf spec installs a verified model that runs by its id`() async throws {
        let f = try StoreCLIFixture()
        let body = TinyModel().writer().bytes()
        let sha = SHA256.hex(of: body)
        let path = f.hubPath(repo: "org/tiny-llm", file: "tiny.gguf")
        // The hub's digest header: verified although the command line gave none.
        f.server.serve(path: path, body: body, headers: ["X-Linked-Etag": "\"\(sha)\""])

        let installed = try await f.json(["models", "pull", "hf:org/tiny-llm/tiny.gguf", "--json"])
        #expect(installed.string("event") == "installed")
        #expect(installed.string("id") == "tiny")
        let file = try #require(installed.objects("files").first)
        #expect(file["sha256"] as? String == sha)
        #expect((file["bytes"] as? NSNumber)?.intValue == body.count)
        let directory = installed.string("directory")
        #expect(directory == f.home.path + "/org/tiny-llm/main/tiny")
        #expect(FileManager.default.contents(atPath: directory + "/tiny.gguf") == Data(body))
        #expect(f.server.bytesSent(for: path) == body.count)

        // The id now works wherever a model is named, and a second pull downloads nothing.
        let tokens = try await f.json(["tokenize", "--model", "tiny", "--json", "hello"])
        #expect(!(tokens["ids"] as? [NSNumber] ?? []).isEmpty)
        #expect(try await f.run(["models", "pull", "hf:org/tiny-llm/tiny.gguf"]).status == 0)
        #expect(f.server.bytesSent(for: path) == body.count)
    }

    @Test func `pull by URL needs --sha256 and --id and installs under url/ID`() async throws {
        let f = try StoreCLIFixture()
        let body = fakeGGUF(70_000, seed: 5)
        let sha = SHA256.hex(of: body)
        f.server.serve(path: "/files/m.gguf", body: body)
        let url = f.server.baseURL.absoluteString + "/files/m.gguf"
        let installed = try await f.json(["models", "pull", url, "--sha256", sha.uppercased(), "--id", "url-model", "--json"])
        #expect(installed.object("source").string("type") == "url")
        #expect(installed.string("directory") == f.home.path + "/url/url-model/\(sha.prefix(16))/file")
        #expect(FileManager.default.contents(atPath: installed.string("directory") + "/m.gguf") == Data(body))
        let noId = try await f.run(["models", "pull", url, "--sha256", sha])
        #expect(noId.status == 2)
        #expect(noId.stderr == "ondevice: missing required option --id\n")
    }

    @Test func `list, info, du and rm show and remove a pulled model`() async throws {
        let f = try StoreCLIFixture()
        let body = fakeGGUF(300_000, seed: 1)
        f.server.serve(path: f.hubPath(repo: "org/fake", revision: "v1", file: "fake.gguf"), body: body)
        _ = try await f.json(["models", "pull", "hf:org/fake@v1/fake.gguf", "--sha256", SHA256.hex(of: body), "--id", "fake-model", "--json"])

        let list = try await f.json(["models", "list", "--json"])
        let row = try #require(list.objects("models").first { $0.string("id") == "fake-model" })
        #expect(row.string("state") == "installed")
        #expect((row["bytes_on_disk"] as? NSNumber)?.intValue == body.count)
        #expect(row.object("source").string("repo") == "org/fake")
        #expect(row.object("source").string("revision") == "v1")
        // The pinned catalog is listed too, absent from this empty store.
        #expect(list.objects("models").contains { $0.string("id") == Op.chat.defaultModelId && $0.string("state") == "absent" })
        #expect(try await f.run(["models", "list"]).stdout.contains("fake-model"))

        let info = try await f.json(["models", "info", "fake-model", "--json"])
        #expect(info.string("state") == "installed")
        #expect(info.string("license") == "unknown")
        #expect(info.object("validation")["valid"] as? Bool == true)
        #expect(info.object("validation")["reused_cache"] as? Bool == true)  // unchanged since install: no hashing
        #expect((info.objects("files").first?["bytes_on_disk"] as? NSNumber)?.intValue == body.count)
        let verified = try await f.json(["models", "info", "fake-model", "--verify", "--json"])
        #expect(verified.object("validation")["reused_cache"] as? Bool == false)
        #expect((verified.object("validation")["bytes_hashed"] as? NSNumber)?.intValue == body.count)
        #expect(try await f.run(["models", "info", "fake-model"]).stdout.contains("validation ok"))

        let du = try await f.json(["models", "du", "--json"])
        #expect(du.objects("models").map { $0.string("id") } == ["fake-model"])
        #expect((du["total_bytes"] as? NSNumber)?.intValue == body.count)
        #expect(((du["free_bytes"] as? NSNumber)?.int64Value ?? 0) > 0)
        #expect(try await f.run(["models", "du"]).stdout.contains("total 293.0 KiB"))

        let removed = try await f.run(["models", "rm", "fake-model"])
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: info.string("directory")))
        #expect(try await f.json(["models", "info", "fake-model", "--json"]).string("state") == "absent")
        #expect((try await f.json(["models", "du", "--json"])["total_bytes"] as? NSNumber)?.intValue == 0)
        let again = try await f.run(["models", "rm", "fake-model"])
        #expect(again.status == 1)
        #expect(again.stderr == "ondevice: model 'fake-model' is not installed\n")
    }

    @Test func `a wrong sha256 installs nothing and names the file`() async throws {
        let f = try StoreCLIFixture()
        let body = fakeGGUF(100_000, seed: 2)
        f.server.serve(path: f.hubPath(repo: "org/bad", file: "bad.gguf"), body: body)
        let out = try await f.run(["models", "pull", "hf:org/bad/bad.gguf", "--sha256", String(repeating: "ab", count: 32)])
        #expect(out.status == 1)
        #expect(out.stderr.hasPrefix("ondevice: bad.gguf: sha256 \(SHA256.hex(of: body)), expected abab"), "\(out.stderr)")
        #expect(out.stderr.split(separator: "\n").count == 1)
        #expect(try await f.json(["models", "info", "bad", "--json"]).string("state") == "absent")
        #expect(!FileManager.default.fileExists(atPath: f.home.path + "/org/bad"))
    }

    @Test func `import adds a local folder, hashing what it copies`() async throws {
        let f = try StoreCLIFixture()
        let folder = f.work.file("my-model")
        try FileManager.default.createDirectory(atPath: folder + "/sub", withIntermediateDirectories: true)
        let weights = fakeGGUF(50_000, seed: 3), config = Array(#"{"dim": 8}"#.utf8)
        try Data(weights).write(to: URL(fileURLWithPath: folder + "/w.gguf"))
        try Data(config).write(to: URL(fileURLWithPath: folder + "/sub/config.json"))

        let imported = try await f.json(["models", "import", folder, "--id", "my-model", "--kind", "embedding", "--json"])
        #expect(imported.string("kind") == "embedding")
        #expect(imported.object("source").string("type") == "local")
        let digests = Dictionary(uniqueKeysWithValues: imported.objects("files").map { ($0.string("name"), $0.string("sha256")) })
        #expect(digests == ["w.gguf": SHA256.hex(of: weights), "sub/config.json": SHA256.hex(of: config)])
        let info = try await f.json(["models", "info", "my-model", "--json"])
        #expect(info.string("state") == "installed")
        #expect(info.object("validation")["valid"] as? Bool == true)
        #expect(FileManager.default.contents(atPath: info.string("directory") + "/sub/config.json") == Data(config))
    }

    @Test func `a Piper voice file imports under its stem with its config, as a voice`() async throws {
        let f = try StoreCLIFixture()
        let folder = f.work.file("voices")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data([1, 2, 3, 4]).write(to: URL(fileURLWithPath: folder + "/en_US-test-low.onnx"))
        let refused = try await f.run(["models", "import", folder + "/en_US-test-low.onnx"])
        #expect(refused.status == 1 && refused.stderr.contains("en_US-test-low.onnx.json"), "\(refused.stderr)")
        try Data("{}".utf8).write(to: URL(fileURLWithPath: folder + "/en_US-test-low.onnx.json"))
        let imported = try await f.json(["models", "import", folder + "/en_US-test-low.onnx", "--json"])
        #expect(imported.string("id") == "en_us-test-low")
        #expect(imported.string("kind") == "tts")
        #expect(imported.objects("files").map { $0.string("name") } == ["en_US-test-low.onnx", "en_US-test-low.onnx.json"])
    }

    @Test func `import of a pinned id is verified against the catalog`() async throws {
        let f = try StoreCLIFixture()
        let entry = try Catalog().entry(id: Op.vad.defaultModelId)
        // Wrong bytes under the pinned names: refused, nothing installed.
        let fake = f.work.file("fake-vad")
        try FileManager.default.createDirectory(atPath: fake, withIntermediateDirectories: true)
        for file in entry.files { try Data(fakeGGUF(1000, seed: 4)).write(to: URL(fileURLWithPath: fake + "/" + file.name)) }
        let refused = try await f.run(["models", "import", fake, "--id", entry.id])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("bytes, expected"), "\(refused.stderr)")
        #expect(try await f.json(["models", "info", entry.id, "--json"]).string("state") == "absent")

        // The real files (from the machine's installed store) are accepted and verified.
        let real = try #require(InstalledModels.directory(of: entry), "\(entry.id) not installed: run scripts/setup.sh all")
        let imported = try await f.run(["models", "import", real, "--id", entry.id])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("verified against the catalog"))
        #expect(try await f.json(["models", "info", entry.id, "--verify", "--json"]).object("validation")["valid"] as? Bool == true)
    }

    @Test func `usage and store errors are one line with a non-zero exit`() async throws {
        let f = try StoreCLIFixture()
        for (args, status, text) in [
            (["models"], Int32(2), "missing argument"),
            (["models", "frobnicate"], 2, "unknown command 'models frobnicate'"),
            (["models", "pull"], 2, "missing argument"),
            (["models", "pull", "x", "--bogus"], 2, "unknown option --bogus"),
            (["models", "pull", "../evil"], 1, "invalid model id '../evil'"),
            (["models", "pull", "hf:org/repo/../../etc/passwd"], 1, "would escape the model store"),
            (["models", "pull", "http://127.0.0.1:1/m.gguf", "--id", "m"], 2, "missing required option --sha256"),
            (["models", "pull", "hf:org/repo/m.gguf", "--sha256", "xyz"], 1, "64 hex digits"),
            (["models", "pull", "no-such-model"], 1, "unknown model 'no-such-model'"),
            (["models", "info", "no-such-model"], 1, "unknown model 'no-such-model'"),
            (["models", "import", f.work.file("missing"), "--id", "x"], 1, "No such file"),
            (["models", "import", f.work.path], 2, "missing required option --id"),
            (["models", "list", "--kind", "llm"], 2, "unknown option --kind"),
        ] {
            let out = try await f.run(args)
            #expect(out.status == status, "\(args): \(out.stderr)")
            #expect(out.stderr.hasPrefix("ondevice: ") && out.stderr.contains(text), "\(args): \(out.stderr)")
            #expect(out.stderr.split(separator: "\n").count == 1, "\(args): \(out.stderr)")
        }
        // Without HF_ENDPOINT the project names no hub: the error says what to set.
        let noHub = try await CLIRunner.run(["models", "pull", "hf:org/repo/m.gguf"],
                                      environment: ["ONDEVICE_HOME": f.home.path, "HF_ENDPOINT": ""])
        #expect(noHub.status == 1)
        #expect(noHub.stderr.contains("set HF_ENDPOINT"), "\(noHub.stderr)")
    }
}

/// The machine's installed pinned models (`$ONDEVICE_HOME`, else the XDG default), used as the
/// source of real bytes for tests that need files matching the pinned digests.
enum InstalledModels {
    static func directory(of entry: CatalogEntry) -> String? {
        let root = StoreConfiguration.defaultRoot(environment: ProcessInfo.processInfo.environment)
        let directory = StoreLayout(root: root).modelDirectory(entry)
        let complete = entry.files.allSatisfy { file in
            (try? FileManager.default.attributesOfItem(atPath: directory + "/" + file.name)[.size] as? NSNumber)?.int64Value == file.bytes
        }
        return complete ? directory : nil
    }
}

/// GGUFs people bring from a hub: any architecture the engine runs pulls and runs unchanged, and
/// one it does not run is answered `unsupported`, naming the architecture, before it is loaded.
@Suite struct ArchitecturePullCLITests {
    @Test func `a pulled qwen2 GGUF runs by its id`() async throws {
        let f = try StoreCLIFixture()
        var tiny = TinyModel()
        tiny.architecture = "qwen2"
        let body = tiny.writer().bytes()
        f.server.serve(path: f.hubPath(repo: "org/tiny-qwen", file: "tiny-qwen.gguf"), body: body,
                       headers: ["X-Linked-Etag": "\"\(SHA256.hex(of: body))\""])
        #expect(try await f.json(["models", "pull", "hf:org/tiny-qwen/tiny-qwen.gguf", "--json"]).string("event") == "installed")
        let ready = try await f.json(["capability", "tiny-qwen", "--json"])
        #expect(ready.string("status") == "ready", "\(ready)")
        let out = try await f.json(["generate", "--model", "tiny-qwen", "--greedy", "--max-tokens", "3", "--json", "hello"])
        #expect((out["generated_ids"] as? [NSNumber])?.isEmpty == false, "\(out)")
    }

    @Test func `capability names an architecture the engine does not run`() async throws {
        let f = try StoreCLIFixture()
        var tiny = TinyModel()
        tiny.architecture = "mamba"
        let body = tiny.writer().bytes()
        f.server.serve(path: f.hubPath(repo: "org/tiny-mamba", file: "tiny-mamba.gguf"), body: body,
                       headers: ["X-Linked-Etag": "\"\(SHA256.hex(of: body))\""])
        #expect(try await f.json(["models", "pull", "hf:org/tiny-mamba/tiny-mamba.gguf", "--json"]).string("event") == "installed")
        let answer = try await f.json(["capability", "tiny-mamba", "--json"])
        #expect(answer.string("status") == "unsupported", "\(answer)")
        #expect(answer.string("reason").contains("'mamba'"), "\(answer)")
        let run = try await f.run(["generate", "--model", "tiny-mamba", "hello"])
        #expect(run.status != 0 && run.stderr.contains("mamba"), "\(run.stderr)")
    }
}
