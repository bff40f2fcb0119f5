import Foundation
import Models
import ModelStore
import Platform
import Runtime

/// Loads the neural descriptor backend, or says why it cannot run here.
package protocol NeuralBackendLoading: Sendable {
    func load() async throws(PhotosError) -> any PhotoDescribing
}

/// The stable photo-similarity feature: one object for the runtime's life. The runtime's
/// revisioned configuration (`RuntimeSettings.photoBackend`, slice `.photoSimilarity`) picks the
/// backend; a change swaps it inside `service` (new generation, re-hydrated cache) without a new
/// feature or service object, so holders keep working.
///
/// Fallback is explicit: `auto` and `neural` use the model when it loads, else the perceptual
/// backend, and `capability` carries the reason.
package final class PhotoSimilarityFeature: ConfigurationSliceConsumer {
    package let slice = ConfigurationSlice.photoSimilarity
    package let service: PhotoSimilarityService
    private let neural: any NeuralBackendLoading
    private let perceptual = PerceptualBackend()
    /// The newest configuration revision seen; a slower, older `configure` must not win.
    private let latestRevision = Locked<UInt64?>(nil)

    package init(cacheDirectory: String, neural: any NeuralBackendLoading) {
        self.neural = neural
        service = PhotoSimilarityService(backend: perceptual,
                                         capability: .perceptual(perceptual.identity, reason: "not configured yet"),
                                         cacheDirectory: cacheDirectory)
    }

    package var capability: PhotoSimilarityCapability { service.capability }

    package func configure(_ identity: RuntimeIdentity, revision: UInt64) async {
        await select(identity.photoSimilarity, revision: revision)
    }

    /// Installs the backend `preference` resolves to (see the type's comment). Returns false when a
    /// newer revision arrived while the model loaded: then this result is dropped.
    @discardableResult
    package func select(_ preference: PhotoBackendPreference, revision: UInt64) async -> Bool {
        let newest = latestRevision.withLock { latest -> Bool in
            guard latest.map({ revision >= $0 }) ?? true else { return false }
            latest = revision
            return true
        }
        guard newest else { return false }
        let chosen: any PhotoDescribing
        let capability: PhotoSimilarityCapability
        switch preference {
        case .perceptual:
            (chosen, capability) = (perceptual, .perceptual(perceptual.identity, reason: "chosen in settings"))
        case .automatic, .neural:
            do {
                let model = try await neural.load()
                (chosen, capability) = (model, .neural(model.identity))
            } catch {
                (chosen, capability) = (perceptual, .perceptual(perceptual.identity, reason: error.description))
            }
        }
        guard latestRevision.withLock({ $0 == revision }) else { return false }
        service.install(chosen, capability: capability)
        return true
    }

    /// `$ONDEVICE_PHOTOS_CACHE`, else `$XDG_CACHE_HOME/ondevice/photos`, else `~/.cache/ondevice/photos`.
    package static func defaultCacheDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let dir = environment["ONDEVICE_PHOTOS_CACHE"], !dir.isEmpty { return dir }
        if let xdg = environment["XDG_CACHE_HOME"], !xdg.isEmpty { return xdg + "/ondevice/photos" }
        return (environment["HOME"] ?? NSTemporaryDirectory()) + "/.cache/ondevice/photos"
    }
}

/// Production neural loader: EfficientNet-Lite0 (`efficientnet-lite0`) leased from the runtime's
/// residency cache, as every other model is, so the memory budget, capability answers and events
/// see it. The backend holds the lease while it is installed; a swap, or the feature's end, drops
/// it and gives the model back to the cache. An installed model is never downloaded here: a
/// missing one is a reason to fall back, not a download behind the user's back.
package struct EfficientNetBackendLoader: NeuralBackendLoading {
    package static let modelId = "efficientnet-lite0"
    package let runtime: OnDeviceRuntime

    package init(runtime: OnDeviceRuntime) { self.runtime = runtime }

    package func load() async throws(PhotosError) -> any PhotoDescribing {
        let installed: InstalledModel?
        do { installed = try await runtime.store.resolve(Self.modelId) } catch {
            throw .backendUnavailable(name: Self.modelId, reason: "\(error)")
        }
        guard let installed, !installed.filePaths.isEmpty else {
            throw .backendUnavailable(name: Self.modelId, reason: "model not installed (ondevice models pull \(Self.modelId))")
        }
        do {
            // One thread per image: the service describes images in parallel.
            let lease = try await runtime.lease(ResidentVisionModel.self, modelId: Self.modelId, options: LoadOptions(threads: 1))
            return EfficientNetBackend(lease: lease, fingerprint: installed.entry.fingerprint)
        } catch {
            throw .backendUnavailable(name: Self.modelId, reason: error.description)
        }
    }
}
