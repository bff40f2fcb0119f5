import Foundation
import Imaging
import ModelStore
import Photos
import TestSupport
import Testing

/// The neural backend with the installed EfficientNet-Lite0 (`ONDEVICE_HOME`, as the project's
/// test command sets it): the feature says neural, descriptors match the golden features, and
/// the golden burst culls the same way as with the perceptual backend.
@Suite(.enabled(if: InstalledEfficientNet.present))
struct NeuralBackendTests {
    static var storeRoot: String? { InstalledEfficientNet.storeRoot }

    static func feature(cache: TemporaryDirectory) async throws -> PhotoSimilarityFeature {
        let store = try ModelStore(configuration: StoreConfiguration(root: try #require(storeRoot)))
        let feature = PhotoSimilarityFeature(cacheDirectory: cache.path, neural: EfficientNetBackendLoader(store: store))
        await feature.select(.automatic, revision: 1)
        return feature
    }

    @Test func `with the model installed auto picks the neural backend and its features match the golden ones`() async throws {
        let cache = try TemporaryDirectory()
        let feature = try await Self.feature(cache: cache)
        guard case .neural(let identity) = feature.capability else { Issue.record("\(feature.capability)"); return }
        #expect(identity.name == "efficientnet-lite0" && identity.dimension == 1280)
        for record in try GoldenVision.records() where (record["file"] as? String)?.hasSuffix(".png") == true {
            let file = try #require(record["file"] as? String)
            let expected = try #require(record["feature"] as? [NSNumber]).map(\.floatValue)
            let facts = try feature.service.facts(for: GoldenVision.path(file))
            let cosine = zip(facts.descriptor.values, expected).reduce(Float(0)) { $0 + $1.0 * $1.1 }
            #expect(cosine >= 0.999, "\(file): cosine \(cosine)")
        }
    }

    @Test func `the golden burst culls the same with neural descriptors`() async throws {
        let cache = try TemporaryDirectory()
        let feature = try await Self.feature(cache: cache)
        let truth = try GoldenVision.json("burst.json")
        let report = try PhotoCuller(service: feature.service).cull(try PhotoFolder.imagePaths(in: GoldenVision.path("burst")), threads: 2)
        let relative = { (p: String) in "burst/" + (p as NSString).lastPathComponent }
        #expect(Set(report.groups.map { Set($0.files.map { relative($0.path) }) }) == Set((truth["groups"] as? [[String]] ?? []).map(Set.init)))
        let burst = try #require(report.groups.first { $0.files.count == 5 })
        #expect(relative(burst.pick) == "burst/pb03.jpg")
        #expect(report.capability == feature.capability)
    }
}

/// Where the pinned EfficientNet-Lite0 is installed, if it is.
enum InstalledEfficientNet {
    static var storeRoot: String? { ProcessInfo.processInfo.environment["ONDEVICE_HOME"] }
    static var present: Bool {
        guard let root = storeRoot else { return false }
        return FileManager.default.fileExists(atPath: root + "/ml-illustrated/efficientnet-lite0/main/pth/efficientnet-lite0-57934424.pth")
    }
}
