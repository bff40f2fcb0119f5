import Dispatch
import Foundation
import ModelStore
import Photos
import Runtime

/// Photo similarity and burst culling on this machine. Its backend follows the instance's
/// runtime configuration: `use(_:)` changes it there, and the library object stays the same.
///
/// ```swift
/// let photos = try await ai.photoLibrary()
/// let result = try await photos.cull(directory: URL(fileURLWithPath: "/photos/2024-06-15"))
/// for burst in result.bursts { print(burst.pick.lastPathComponent) }
/// ```
public final class PhotoLibrary: Sendable {
    let feature: PhotoSimilarityFeature
    let runtime: OnDeviceRuntime
    let threads: Int
    /// Where the descriptor caches and the photo-text index live.
    let cacheDirectory: String
    /// The instance the library came from: its embedding model serves text search by meaning,
    /// and its face and text ops serve the library's.
    let ai: OnDeviceAI

    init(feature: PhotoSimilarityFeature, runtime: OnDeviceRuntime, threads: Int, cacheDirectory: String, ai: OnDeviceAI) {
        self.feature = feature
        self.runtime = runtime
        self.threads = threads
        self.cacheDirectory = cacheDirectory
        self.ai = ai
    }

    /// The active backend.
    public var backend: PhotoBackend { Self.backend(feature.capability) }

    /// Asks the runtime configuration for another backend; descriptors of the old one are never
    /// mixed with the new one's.
    public func use(_ choice: PhotoBackendChoice) async throws {
        let preference = PhotoBackendPreference(rawValue: choice.rawValue) ?? .automatic
        _ = try await runtime.settings.update { $0.photoBackend = preference }
    }

    /// Groups the photos under `directory` into bursts and ranks each burst, sharpest first.
    /// When the face models are installed, a burst showing faces is ranked by the sharpness of its
    /// faces, and frames whose main face has its eyes closed rank lower; the reasons say so.
    /// `progress(done, total)` is called as files are decoded (from any thread).
    /// Frames further apart than `maxGapSeconds` (by capture time) are never one burst.
    public func cull(directory: URL, maxGapSeconds: Double = 2.0,
                     progress: (@Sendable (Int, Int) -> Void)? = nil) async throws -> PhotoCullResult {
        let service = feature.service, threads = threads
        let leases = await runtime.faceLeases()
        let faceModels = leases.map { FaceModels(detector: $0.0.model.model, mesh: $0.1.model.model) }
        let report: CullReport
        do {
            report = try await Self.offPool {
                let paths = try PhotoFolder.imagePaths(in: directory.path)
                let culler = PhotoCuller(service: service, maxGapSeconds: maxGapSeconds, faceModels: faceModels)
                let report = try culler.cull(paths, threads: threads, progress: progress)
                try service.saveCache()
                return report
            }
        } catch {
            await leases?.0.release()
            await leases?.1.release()
            throw error
        }
        await leases?.0.release()
        await leases?.1.release()
        let bursts = report.groups.map { g in
            PhotoBurst(files: g.files.map { URL(fileURLWithPath: $0.path) }, pick: URL(fileURLWithPath: g.pick),
                       reasons: g.files.map(\.reason),
                       frames: g.files.map {
                           PhotoFrame(url: URL(fileURLWithPath: $0.path), sharpness: $0.quality.sharpness, clipping: $0.quality.clipping,
                                      score: $0.quality.score, captureTime: $0.captureTime, reason: $0.reason)
                       })
        }
        return PhotoCullResult(bursts: bursts, skipped: report.failures.map(\.description), backend: Self.backend(report.capability))
    }

    /// Describes every photo under `directory` (decode, quality, descriptor) into the cache, so
    /// later `similar` and `cull` calls read it instead; photos unchanged since are not decoded
    /// again. `progress(done, total)` is called as files are described (from any thread).
    public func index(directory: URL, progress: (@Sendable (Int, Int) -> Void)? = nil) async throws -> PhotoIndexing {
        let service = feature.service, threads = threads
        let (indexed, skipped, capability) = try await Self.offPool { () throws -> (Int, [String], PhotoSimilarityCapability) in
            let paths = try PhotoFolder.imagePaths(in: directory.path)
            let results = service.facts(for: paths, threads: threads, progress: progress)
            try service.saveCache()
            let skipped = results.compactMap { if case .failure(let e) = $0 { e.description } else { nil } }
            return (paths.count - skipped.count, skipped, service.capability)
        }
        return PhotoIndexing(indexed: indexed, skipped: skipped, backend: Self.backend(capability))
    }

    /// The `count` photos under `directory` most similar to `image`, best first.
    public func similar(to image: URL, in directory: URL, count: Int = 10) async throws -> [SimilarPhoto] {
        let service = feature.service, threads = threads
        return try await Self.offPool {
            let paths = try PhotoFolder.imagePaths(in: directory.path)
            let results = service.facts(for: paths, threads: threads)
            try service.saveCache()
            let query = try service.facts(for: image.standardizedFileURL.path)
            let candidates = zip(paths, results).compactMap { p, r in (try? r.get()).map { (path: p, descriptor: $0.descriptor) } }
            return try PhotoSearch.nearest(to: query.descriptor, queryPath: image.standardizedFileURL.path, among: candidates, k: count)
                .map { SimilarPhoto(url: URL(fileURLWithPath: $0.path), similarity: $0.similarity) }
        }
    }

    static func backend(_ capability: PhotoSimilarityCapability) -> PhotoBackend {
        switch capability {
        case .neural(let id): .neural(model: id.name)
        case .perceptual(_, let reason): .perceptual(reason: reason)
        }
    }

    /// Runs blocking decode work on a Dispatch thread, keeping the cooperative pool free.
    static func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
        }
    }
}
