import Foundation
import ModelStore
import Testing
import TestSupport

/// `ondevice prefetch`: an app's `ondevice.json` names ops; the CLI fetches each op's default
/// model through `Op.defaultModelId`, into the layout the runtime's first-use download uses.
/// The hub serves the real pinned bytes (taken from the machine's installed store), so the pinned
/// sizes and digests are checked for real.
@Suite struct PrefetchCLITests {
    /// Serves every file of `entry` at its pinned hub path; returns the paths.
    static func serve(_ entry: CatalogEntry, on f: StoreCLIFixture) throws -> [String] {
        guard case .huggingFace(let repo, let revision) = entry.source else { throw SetupFailure("\(entry.id) is not a hub model") }
        let installed = try #require(InstalledModels.directory(of: entry), "\(entry.id) not installed: run scripts/setup.sh all")
        return try entry.files.map { file in
            let path = f.hubPath(repo: repo, revision: revision, file: file.sourcePath)
            let bytes = try Data(contentsOf: URL(fileURLWithPath: installed + "/" + file.name))
            f.server.serve(path: path, body: [UInt8](bytes))
            return path
        }
    }

    @Test func `prefetch from ondevice.json fetches each op's model where first use looks for it`() async throws {
        let f = try StoreCLIFixture()
        let entry = try Catalog().entry(for: .vad)
        let paths = try Self.serve(entry, on: f)
        let manifest = f.work.file("ondevice.json")
        try Data(#"{"ops": ["vad"], "name": "my app"}"#.utf8).write(to: URL(fileURLWithPath: manifest))

        let out = try await f.json(["prefetch", "--manifest", manifest, "--json"])
        #expect(out.string("event") == "prefetched")
        #expect(out["ops"] as? [String] == ["vad"])
        #expect(out.objects("models").map { $0.string("id") } == [Op.vad.defaultModelId])
        let served = paths.map { f.server.bytesSent(for: $0) }.reduce(0, +)
        #expect(Int64(served) == entry.knownBytes)

        // The runtime's first-use path finds it installed and downloads nothing more.
        let store = try ModelStore(configuration: StoreConfiguration(root: f.home.path, hfEndpoint: f.server.baseURL))
        let model = try await store.model(for: .vad)
        #expect(model.directory == out.objects("models").first?.string("directory"))
        #expect(try await store.validate(entry.id, force: true).isValid)
        #expect(try await f.run(["prefetch", "--manifest", manifest]).stdout.contains("ready \(entry.id)"))
        #expect(paths.map { f.server.bytesSent(for: $0) }.reduce(0, +) == served)
    }

    @Test func `models pull by catalog id verifies the pinned files`() async throws {
        let f = try StoreCLIFixture()
        let entry = try Catalog().entry(for: .vad)
        let paths = try Self.serve(entry, on: f)
        let installed = try await f.json(["models", "pull", entry.id, "--json"])
        #expect(installed["pinned"] as? Bool == true)
        #expect(installed.objects("files").map { $0.string("sha256") } == entry.files.map { $0.sha256 ?? "" })
        #expect(Int64(paths.map { f.server.bytesSent(for: $0) }.reduce(0, +)) == entry.knownBytes)
    }

    @Test func `prefetch --ops needs no manifest, and a bad op or manifest is one line`() async throws {
        let f = try StoreCLIFixture()
        let entry = try Catalog().entry(for: .vad)
        _ = try Self.serve(entry, on: f)
        let out = try await f.json(["prefetch", "--ops", "vad", "--json"])
        #expect(out.objects("models").map { $0.string("id") } == [entry.id])
        #expect(try await f.json(["models", "info", entry.id, "--json"]).string("state") == "installed")

        let badOp = try await f.run(["prefetch", "--ops", "vad,teleport"])
        #expect(badOp.status == 1)
        #expect(badOp.stderr == "ondevice: unknown op 'teleport'\n")
        let manifest = f.work.file("bad.json")
        try Data(#"{"ops": "vad"}"#.utf8).write(to: URL(fileURLWithPath: manifest))
        let badManifest = try await f.run(["prefetch", "--manifest", manifest])
        #expect(badManifest.status == 1)
        #expect(badManifest.stderr.contains("\"ops\" must be an array of strings"), "\(badManifest.stderr)")
        let missing = try await f.run(["prefetch", "--manifest", f.work.file("nope.json")])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("nope.json: no such file"))
    }
}

/// A test-side failure with a message.
struct SetupFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
