import Foundation
import TestSupport
import Testing

/// `ondevice photos cull` end to end: one JSON object, bursts ranked, bad files reported.
@Suite struct PhotosCLITests {
    @Test func `photos cull --json groups the burst, picks the sharpest and skips a bad file`() async throws {
        let folder = try TemporaryDirectory(), cache = try TemporaryDirectory()
        let burst = GoldenFiles.root.appendingPathComponent("vision/burst")
        for name in try FileManager.default.contentsOfDirectory(atPath: burst.path) {
            try FileManager.default.copyItem(atPath: burst.appendingPathComponent(name).path, toPath: folder.file(name))
        }
        let whole = try Data(contentsOf: burst.appendingPathComponent("pb01.jpg"))
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: folder.file("zz_cut.jpg")))
        let env = ["ONDEVICE_PHOTOS_CACHE": cache.path, "ONDEVICE_HOME": folder.file("no-models")]
        let out = try await CLIRunner.run(["photos", "cull", folder.path, "--json", "--backend", "perceptual"], environment: env)
        #expect(out.status == 0, "\(out.stderr)")
        #expect(out.stderr.contains("zz_cut.jpg"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any])
        let groups = try #require(object["groups"] as? [[String: Any]])
        let names = groups.map { ($0["files"] as? [String] ?? []).map { ($0 as NSString).lastPathComponent } }
        #expect(Set(names.map(Set.init)) == [["pb02.jpg", "pb03.jpg", "pb04.jpg", "pb05.jpg", "pb06.jpg"], ["pb01.jpg"], ["pb07.jpg"]])
        let five = try #require(groups.first { ($0["files"] as? [String])?.count == 5 })
        #expect(((five["pick"] as? String).map { ($0 as NSString).lastPathComponent }) == "pb03.jpg")
        #expect((five["files"] as? [String])?.first == five["pick"] as? String)

        let csv = try await CLIRunner.run(["photos", "cull", folder.path, "--csv", "--backend", "perceptual"], environment: env)
        #expect(csv.stdout.split(separator: "\n").count == 1 + 7)
    }
}
