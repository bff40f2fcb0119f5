import Dispatch
import Foundation
import ModelStore
import Photos
import Runtime

extension OnDeviceAI {
    /// A photo library over this instance's runtime. `cacheDirectory` holds descriptor caches
    /// and the photo-text index (default `$XDG_CACHE_HOME/ondevice/photos`).
    public func photoLibrary(cacheDirectory: URL? = nil) async throws -> PhotoLibrary {
        let runtime = try await runtime()
        let directory = cacheDirectory?.path ?? PhotoSimilarityFeature.defaultCacheDirectory()
        let feature = PhotoSimilarityFeature(cacheDirectory: directory, neural: EfficientNetBackendLoader(runtime: runtime))
        await runtime.attach(feature)
        return PhotoLibrary(feature: feature, runtime: runtime,
                            threads: configuration.threads ?? ProcessInfo.processInfo.activeProcessorCount,
                            cacheDirectory: directory, ai: self)
    }
}
