import Foundation
import ModelStore
import Photos
import Runtime
import TestSupport
import Testing

/// The similarity feature is one stable object; the runtime's revisioned configuration swaps its
/// backend underneath.
@Suite struct PhotoFeatureTests {
    static func runtime(_ settings: RuntimeSettings, home: TemporaryDirectory) async throws -> OnDeviceRuntime {
        try await OnDeviceRuntime.make(RuntimeDependencies(
            store: StoreConfiguration(root: home.file("models")), initialSettings: settings,
            memoryProbe: FixedMemoryProbe(MemorySnapshot(memAvailable: 1 << 34)), pressureProbe: nil))
    }

    @Test func `a configuration change swaps the backend without rebuilding the feature`() async throws {
        let home = try TemporaryDirectory()
        var settings = RuntimeSettings()
        settings.photoBackend = .perceptual
        let runtime = try await Self.runtime(settings, home: home)
        let feature = PhotoSimilarityFeature(cacheDirectory: home.file("cache"), neural: TestNeuralLoader(backend: GridColourBackend()))
        await runtime.attach(feature)
        let service = feature.service
        #expect(feature.capability == .perceptual(PerceptualBackend().identity, reason: "chosen in settings"))
        #expect(service.generation == 0)

        let outcome = try await runtime.settings.update { $0.photoBackend = .automatic }
        guard case .applied(_, let swapped)? = outcome else { Issue.record("not applied: \(String(describing: outcome))"); return }
        #expect(swapped == [.photoSimilarity])
        #expect(feature.capability == .neural(GridColourBackend().identity))
        #expect(feature.service === service)
        #expect(service.generation == 1)
        let facts = try service.facts(for: GoldenVision.path("images/p01_chelsea.jpg"))
        #expect(facts.descriptor.identity == GridColourBackend().identity)

        // An unrelated change leaves the photo backend alone.
        _ = try await runtime.settings.update { $0.contextLength = 2048 }
        #expect(service.generation == 1)
        _ = try await runtime.settings.update { $0.photoBackend = .perceptual }
        #expect(service.generation == 2)
        #expect(service.backend.identity == PerceptualBackend().identity)
        await runtime.shutdown()
    }

    @Test func `without the model the feature falls back to perceptual and says why`() async throws {
        let home = try TemporaryDirectory()
        let feature = PhotoSimilarityFeature(cacheDirectory: home.file("cache"),
                                             neural: TestNeuralLoader(backend: nil, reason: "model not installed"))
        #expect(await feature.select(.neural, revision: 1))
        #expect(feature.capability == .perceptual(PerceptualBackend().identity,
                                                  reason: "test-neural backend unavailable: model not installed"))
        // An older revision arriving late does not override a newer one.
        #expect(await feature.select(.perceptual, revision: 3))
        #expect(!(await feature.select(.neural, revision: 2)))
        #expect(feature.capability == .perceptual(PerceptualBackend().identity, reason: "chosen in settings"))
    }

    @Test func `the production loader reports the model's state instead of inventing features`() async throws {
        let home = try TemporaryDirectory()
        let runtime = try await Self.runtime(RuntimeSettings(), home: home)
        do {
            _ = try await EfficientNetBackendLoader(runtime: runtime).load()
            Issue.record("loaded from an empty store")
        } catch {
            guard case .backendUnavailable(let name, let reason) = error else { Issue.record("\(error)"); return }
            #expect(name == "efficientnet-lite0")
            #expect(reason.contains("not installed"))
        }
    }
}
