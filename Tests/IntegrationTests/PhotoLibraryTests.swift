import Foundation
import OnDevice
import TestSupport
import Testing

/// The public photo API: culling a folder through an `OnDeviceAI` instance, and switching the
/// backend through its runtime configuration.
@Suite struct PhotoLibraryTests {
    @Test func `an app culls the golden burst and switches backend on the same library`() async throws {
        let home = try TemporaryDirectory()
        var configuration = OnDeviceAI.Configuration()
        configuration.storeRoot = home.file("models")  // empty store: no model, perceptual fallback
        let ai = OnDeviceAI(configuration: configuration)
        let photos = try await ai.photoLibrary(cacheDirectory: URL(fileURLWithPath: home.file("cache")))
        guard case .perceptual(let reason) = photos.backend else { Issue.record("\(photos.backend)"); return }
        #expect(reason.contains("not installed"))

        let burst = GoldenFiles.root.appendingPathComponent("vision/burst")
        let result = try await photos.cull(directory: burst)
        #expect(result.skipped.isEmpty)
        #expect(result.bursts.count == 3)
        let five = try #require(result.bursts.first { $0.files.count == 5 })
        #expect(five.pick.lastPathComponent == "pb03.jpg")
        #expect(five.files.map(\.lastPathComponent) == ["pb03.jpg", "pb05.jpg", "pb02.jpg", "pb04.jpg", "pb06.jpg"])

        try await photos.use(.perceptual)
        #expect(photos.backend == .perceptual(reason: "chosen in settings"))
        let near = try await photos.similar(to: burst.appendingPathComponent("pb02.jpg"), in: burst, count: 2)
        #expect(near.count == 2 && near.first?.url.lastPathComponent == "pb03.jpg")
    }
}
