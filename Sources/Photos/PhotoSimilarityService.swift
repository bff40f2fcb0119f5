import Foundation
import Imaging
import Platform
import Synchronization

/// Which descriptor backend is active, and why.
package enum PhotoSimilarityCapability: Sendable, Equatable, CustomStringConvertible {
    /// The image-feature model describes photos.
    case neural(DescriptorIdentity)
    /// The built-in perceptual descriptor, with the reason the model is not used.
    case perceptual(DescriptorIdentity, reason: String)

    package var identity: DescriptorIdentity {
        switch self {
        case .neural(let id), .perceptual(let id, _): return id
        }
    }

    package var description: String {
        switch self {
        case .neural(let id): return "neural (\(id))"
        case .perceptual(let id, let reason): return "perceptual (\(id)): \(reason)"
        }
    }
}

/// Describes photos with the active backend, through a per-backend disk cache.
///
/// Installing a backend advances a generation and re-hydrates: the in-memory entries become the
/// new backend's cache file, so no descriptor of the old backend is served again. Work started
/// under an older generation (a folder scan still decoding) finishes, but its results are
/// dropped (`PhotosError.superseded`) instead of entering the new backend's cache.
package final class PhotoSimilarityService: Sendable {
    private struct State {
        var backend: any PhotoDescribing
        var capability: PhotoSimilarityCapability
        var generation: UInt64
        var cache: DescriptorCache
    }
    private let state: Locked<State>
    package let cacheDirectory: String
    package let decoder: ImageDecoder

    package init(backend: any PhotoDescribing, capability: PhotoSimilarityCapability, cacheDirectory: String,
                 decoder: ImageDecoder = ImageDecoder()) {
        self.cacheDirectory = cacheDirectory
        self.decoder = decoder
        state = Locked(State(backend: backend, capability: capability, generation: 0,
                            cache: DescriptorCache(directory: cacheDirectory, identity: backend.identity)))
    }

    package var generation: UInt64 { state.withLock { $0.generation } }
    package var capability: PhotoSimilarityCapability { state.withLock { $0.capability } }
    package var backend: any PhotoDescribing { state.withLock { $0.backend } }
    /// Why the active backend's cache file was not used, if it existed but was unusable.
    package var cacheProblem: String? { state.withLock { $0.cache.loadProblem } }

    /// Makes `backend` the active one. A different identity advances the generation and loads
    /// that backend's cache; the same identity only updates the capability text.
    package func install(_ backend: any PhotoDescribing, capability: PhotoSimilarityCapability) {
        let sameIdentity = state.withLock { $0.backend.identity == backend.identity }
        // The cache file is read outside the lock; installs are rare and serialised by the caller.
        let cache = sameIdentity ? nil : DescriptorCache(directory: cacheDirectory, identity: backend.identity)
        state.withLock { s in
            s.capability = capability
            guard let cache else { return }
            s.backend = backend
            s.generation &+= 1
            s.cache = cache
        }
    }

    /// Facts (descriptor, quality, capture time) of one file under the active backend: cached
    /// while its size and mtime match, else decoded. Throws `.superseded` when the backend
    /// changed before the result was ready.
    package func facts(for path: String) throws(PhotosError) -> PhotoFacts {
        guard let stamp = FileStamp.of(path) else {
            throw .image(.unreadable(file: path, reason: "cannot stat"))
        }
        let (backend, generation, cached) = state.withLock { ($0.backend, $0.generation, $0.cache.lookup(path, stamp: stamp)) }
        if let cached { return cached }
        // Quality is measured at up to FrameQuality.analysisSide, so keep at least that much.
        let minimumSide = backend.minimumDecodeSide.map { max($0, FrameQuality.analysisSide) }
        let photo: DecodedPhoto
        do { photo = try decoder.decode(fileAt: path, minimumLongSide: minimumSide) } catch { throw .image(error) }
        let facts = PhotoFacts(stamp: stamp, descriptor: backend.describe(photo.image), quality: FrameQuality(photo.image),
                               captureText: photo.metadata.captureTime?.dateTime,
                               captureSeconds: photo.metadata.captureTime?.seconds,
                               width: photo.image.width, height: photo.image.height)
        let current = state.withLock { s -> UInt64 in
            if s.generation == generation { s.cache.store(facts, for: path) }
            return s.generation
        }
        guard current == generation else { throw .superseded(generation: generation, current: current) }
        return facts
    }

    /// Facts of many files, decoded on `threads` threads. One bad file is its own failure and
    /// never stops the rest. `progress(done, total)` is called after each file, from any thread.
    package func facts(for paths: [String], threads: Int,
                       progress: (@Sendable (Int, Int) -> Void)? = nil) -> [Result<PhotoFacts, PhotosError>] {
        let results = Locked([Result<PhotoFacts, PhotosError>?](repeating: nil, count: paths.count))
        let next = Atomic<Int>(0)
        let done = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: max(1, min(threads, paths.count))) { _ in
            while true {
                let i = next.add(1, ordering: .relaxed).oldValue
                guard i < paths.count else { return }
                let result: Result<PhotoFacts, PhotosError>
                do throws(PhotosError) { result = .success(try facts(for: paths[i])) } catch { result = .failure(error) }
                results.withLock { $0[i] = result }
                let finished = done.add(1, ordering: .relaxed).newValue
                progress?(finished, paths.count)
            }
        }
        return results.withLock { $0.map { $0 ?? .failure(.superseded(generation: 0, current: 0)) } }
    }

    /// Writes the active backend's cache (atomically).
    package func saveCache() throws(PhotosError) {
        let cache = state.withLock { $0.cache }
        try cache.save()
    }
}
