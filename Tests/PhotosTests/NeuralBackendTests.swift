import Foundation
import Imaging
import ModelStore
import Photos
import Runtime
import TestSupport
import Testing

/// The neural backend with the pinned EfficientNet-Lite0 from the model store the CLI uses
/// (`ONDEVICE_HOME`, else the XDG default, where `scripts/setup.sh all` installs it): the feature
/// says neural, descriptors match the golden features, and the golden burst culls the same way as
/// with the perceptual backend. A missing model is a failure, not a skip.
@Suite struct NeuralBackendTests {
    static let storeRoot = StoreConfiguration.defaultRoot(environment: ProcessInfo.processInfo.environment)
    static let modelFile = "ml-illustrated/efficientnet-lite0/main/pth/efficientnet-lite0-57934424.pth"

    static func feature(cache: TemporaryDirectory, runtime: OnDeviceRuntime? = nil) async throws -> PhotoSimilarityFeature {
        try #require(FileManager.default.fileExists(atPath: storeRoot + "/" + modelFile),
                     "EfficientNet-Lite0 is not installed in \(storeRoot): run scripts/setup.sh all")
        let runtime = if let runtime { runtime } else { try await Self.runtime() }
        let feature = PhotoSimilarityFeature(cacheDirectory: cache.path, neural: EfficientNetBackendLoader(runtime: runtime))
        await feature.select(.automatic, revision: 1)
        return feature
    }

    static func runtime() async throws -> OnDeviceRuntime {
        try await OnDeviceRuntime.make(RuntimeDependencies(store: StoreConfiguration(root: storeRoot), pressureProbe: nil))
    }

    @Test func `the neural backend is leased from the runtime while it is installed, and given back after`() async throws {
        let cache = try TemporaryDirectory()
        let runtime = try await Self.runtime()
        var feature: PhotoSimilarityFeature? = try await Self.feature(cache: cache, runtime: runtime)
        guard case .neural? = feature?.capability else { Issue.record("\(String(describing: feature?.capability))"); return }
        let held = await runtime.residency.snapshot().models.first { $0.modelId == "efficientnet-lite0" }
        #expect(held?.leases == 1, "\(String(describing: held))")
        #expect((held?.bytes ?? 0) > 0)
        _ = try feature?.service.facts(for: GoldenVision.path("images/p01_chelsea.jpg"))
        feature = nil
        var leases = held?.leases ?? 0
        for _ in 0..<200 where leases > 0 {
            try await Task.sleep(for: .milliseconds(10))
            leases = await runtime.residency.snapshot().models.first { $0.modelId == "efficientnet-lite0" }?.leases ?? 0
        }
        #expect(leases == 0, "the dropped feature still holds the model")
        await runtime.shutdown()
    }

    @Test func `with the model installed auto picks the neural backend and its features match the golden ones`() async throws {
        let cache = try TemporaryDirectory()
        let feature = try await Self.feature(cache: cache)
        guard case .neural(let identity) = feature.capability else { Issue.record("\(feature.capability)"); return }
        #expect(identity.name == "efficientnet-lite0" && identity.dimension == 1280)
        // PNGs only: their pixels are the reference's with any decoder.
        let records = try GoldenVision.records().filter { ($0["file"] as? String)?.hasSuffix(".png") == true }
        try #require(!records.isEmpty, "no PNG records in features.jsonl")
        var lowest: Float = 1
        for record in records {
            let file = try #require(record["file"] as? String)
            let expected = try #require(record["feature"] as? [NSNumber]).map(\.floatValue)
            let facts = try feature.service.facts(for: GoldenVision.path(file))
            try #require(facts.descriptor.values.count == expected.count, "\(file): \(facts.descriptor.values.count) values")
            let cosine = zip(facts.descriptor.values, expected).reduce(Float(0)) { $0 + $1.0 * $1.1 }
            lowest = min(lowest, cosine)
            // Measured: lowest cosine 0.9999994 (1 - cosine 6e-7) over the PNGs; bound 5e-6.
            #expect(1 - cosine <= 5e-6, "\(file): cosine \(cosine)")
        }
        print("[photos] neural descriptors of \(records.count) golden PNGs: lowest cosine \(lowest)")
        GoldenRecords.checked(records.count, in: Self.self)
    }

    @Test func `the golden burst culls the same with neural descriptors`() async throws {
        let cache = try TemporaryDirectory()
        let feature = try await Self.feature(cache: cache)
        let truth = try GoldenVision.json("burst.json")
        let groups = try #require(truth["groups"] as? [[String]], "burst.json has no groups")
        let report = try PhotoCuller(service: feature.service).cull(try PhotoFolder.imagePaths(in: GoldenVision.path("burst")), threads: 2)
        let relative = { (p: String) in "burst/" + (p as NSString).lastPathComponent }
        #expect(Set(report.groups.map { Set($0.files.map { relative($0.path) }) }) == Set(groups.map(Set.init)))
        let burst = try #require(report.groups.first { $0.files.count == 5 })
        #expect(relative(burst.pick) == "burst/pb03.jpg")
        #expect(report.capability == feature.capability)
        GoldenRecords.checked(in: Self.self)
    }
}
