import Foundation
import TestSupport
import Testing

/// `ondevice photos cull` end to end: one JSON object, bursts ranked, bad files reported.
@Suite struct PhotosCLITests {
    /// `ondevice classify` runs through the public API (`classify`), the model by catalog id or by
    /// its `.pth` path; both give torch's top five for the golden cat within the golden
    /// EfficientNet test's logit bound (1e-4), and `capability classify` sees the same model.
    @Test func `classify gives the golden top five by id or checkpoint path`() async throws {
        let record = try #require(try GoldenFiles.lines("vision/features.jsonl").first { $0.string("file") == "burst/pb01.jpg" })
        let expected = try #require(record["top5"] as? [[String: Any]])
        let checkpoint = try #require(TestModels.path("efficientnet-lite0-57934424.pth"), "efficientnet-lite0 not installed: run scripts/setup.sh all")
        let image = GoldenFiles.root.appendingPathComponent("vision/burst/pb01.jpg").path
        for model in ["efficientnet-lite0", checkpoint] {
            let out = try await CLIRunner.run(["classify", image, "--model", model, "--json"])
            #expect(out.status == 0, "\(model): \(out.stderr)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any], "\(out.stdout)")
            let top = try #require(object["top5"] as? [[String: Any]])
            #expect(top.map { $0["id"] as? Int } == expected.map { $0["id"] as? Int }, "\(model): \(top)")
            for (found, want) in zip(top, expected) {
                let difference = abs((found["logit"] as? Double ?? .nan) - (want["logit"] as? Double ?? 0))
                #expect(difference <= 1e-4, "\(model): logit of \(want["label"] ?? "") off by \(difference)")
            }
            #expect(object.string("model") == model)
        }
        let capability = try await CLIRunner.run(["capability", "classify", "--json"])
        #expect(capability.status == 0 && capability.stdout.contains("\"ready\""), "\(capability.stdout) \(capability.stderr)")
    }

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

        let frames = try #require(five["frames"] as? [[String: Any]])
        #expect(frames.count == 5 && frames.allSatisfy { ($0["sharpness"] as? Double ?? 0) > 0 && $0["score"] is Double })
        #expect((object["backend"] as? String)?.hasPrefix("perceptual") == true)

        let csv = try await CLIRunner.run(["photos", "cull", folder.path, "--csv", "--backend", "perceptual"], environment: env)
        #expect(csv.stdout.split(separator: "\n").count == 1 + 7)

        // index and similar go through the same public library: the cut file is named, the burst
        // is found around one of its frames.
        let index = try await CLIRunner.run(["photos", "index", folder.path, "--json", "--backend", "perceptual"], environment: env)
        let indexed = try #require(try JSONSerialization.jsonObject(with: Data(index.stdout.utf8)) as? [String: Any], "\(index.stderr)")
        #expect(indexed["photos"] as? Int == 7 && indexed["failed"] as? Int == 1, "\(indexed)")
        #expect(index.stderr.contains("zz_cut.jpg"))
        let similar = try await CLIRunner.run(["photos", "similar", folder.file("pb03.jpg"), "--in", folder.path, "--k", "3", "--json",
                                               "--backend", "perceptual"], environment: env)
        let found = try #require(try JSONSerialization.jsonObject(with: Data(similar.stdout.utf8)) as? [String: Any], "\(similar.stderr)")
        let results = try #require(found["results"] as? [[String: Any]])
        let near = results.compactMap { ($0["path"] as? String).map { ($0 as NSString).lastPathComponent } }
        #expect(near.count == 3 && Set(near).isSubset(of: ["pb02.jpg", "pb03.jpg", "pb04.jpg", "pb05.jpg", "pb06.jpg"]), "\(near)")
        let scores = results.compactMap { $0["similarity"] as? Double }
        #expect(scores == scores.sorted(by: >))
    }
}
