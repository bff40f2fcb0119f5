import Dispatch
import Foundation
import Imaging
import Photos
import TestSupport
import Testing

@Suite struct SimilarityServiceTests {
    static let files = ["images/p01_chelsea.jpg", "images/p02_coffee.png", "images/p04_rocket.jpg"].map(GoldenVision.path)

    static func service(_ backend: any PhotoDescribing, cache: TemporaryDirectory) -> PhotoSimilarityService {
        PhotoSimilarityService(backend: backend, capability: .perceptual(backend.identity, reason: "test"), cacheDirectory: cache.path)
    }

    @Test func `descriptors of two backends are never compared`() throws {
        let image = try ImageDecoder().decode(fileAt: Self.files[0]).image
        let a = PerceptualBackend().describe(image), b = GridColourBackend().describe(image)
        #expect(throws: PhotosError.incomparableDescriptors(a.identity, b.identity)) { try a.similarity(to: b) }
        #expect(throws: PhotosError.self) {
            try PhotoSearch.nearest(to: a, queryPath: "q", among: [("x", b)], k: 1)
        }
        #expect(abs(try a.similarity(to: a) - 1) < 1e-5)
    }

    @Test func `a result still computing when the backend is swapped is dropped`() throws {
        let cache = try TemporaryDirectory()
        let gated = GatedBackend(PerceptualBackend())
        let service = Self.service(gated, cache: cache)
        let outcome = LockedBox<Result<PhotoFacts, PhotosError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            do throws(PhotosError) { outcome.set(.success(try service.facts(for: Self.files[0]))) } catch { outcome.set(.failure(error)) }
            done.signal()
        }
        gated.entered.wait()            // the old backend is computing
        service.install(GridColourBackend(), capability: .neural(GridColourBackend().identity))
        gated.released.signal()         // ...and finishes late
        done.wait()
        #expect(outcome.get() == .failure(.superseded(generation: 0, current: 1)))
        // Re-hydrated: the same file now comes from the new backend, and the late result is in
        // no cache.
        #expect(try service.facts(for: Self.files[0]).descriptor.identity == GridColourBackend().identity)
        try service.saveCache()
        #expect(DescriptorCache(directory: cache.path, identity: PerceptualBackend().identity).entries.isEmpty)
    }

    @Test func `a second scan reads the cache and a changed file is decoded again`() throws {
        let cache = try TemporaryDirectory(), folder = try TemporaryDirectory()
        let paths = try Self.files.enumerated().map { i, source in
            let target = folder.file("f\(i)." + (source as NSString).pathExtension)
            try FileManager.default.copyItem(atPath: source, toPath: target)
            return target
        }
        let first = CountingBackend(PerceptualBackend())
        let results = Self.service(first, cache: cache).facts(for: paths, threads: 2)
        #expect(results.allSatisfy { if case .success = $0 { true } else { false } })
        #expect(first.calls.load(ordering: .relaxed) == 3)
        let service = Self.service(first, cache: cache)
        _ = service.facts(for: paths, threads: 2)
        try service.saveCache()

        let second = CountingBackend(PerceptualBackend())
        let again = Self.service(second, cache: cache)
        let cached = again.facts(for: paths, threads: 2)
        #expect(second.calls.load(ordering: .relaxed) == 0)
        #expect(try cached.map { try $0.get() } == results.map { try $0.get() })
        // Replace one file's content: size and mtime change, so it is described again.
        try FileManager.default.removeItem(atPath: paths[1])
        try FileManager.default.copyItem(atPath: GoldenVision.path("images/p05_camera.png"), toPath: paths[1])
        _ = again.facts(for: paths, threads: 2)
        #expect(second.calls.load(ordering: .relaxed) == 1)
        // Another backend keeps its own file: nothing of the perceptual cache is served to it.
        let grid = CountingBackend(GridColourBackend())
        _ = Self.service(grid, cache: cache).facts(for: paths, threads: 1)
        #expect(grid.calls.load(ordering: .relaxed) == 3)
    }

    @Test func `a torn or killed cache write is never trusted and never loses the last good file`() throws {
        let cache = try TemporaryDirectory()
        let service = Self.service(PerceptualBackend(), cache: cache)
        _ = service.facts(for: Self.files, threads: 1)
        try service.saveCache()
        let identity = PerceptualBackend().identity
        let good = DescriptorCache(directory: cache.path, identity: identity)
        #expect(good.entries.count == 3 && good.loadProblem == nil)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: good.file)))

        // A writer killed mid-write leaves only its temporary file: the real file is untouched.
        try Data(bytes.prefix(bytes.count / 2)).write(to: URL(fileURLWithPath: good.file + ".tmp-99999-1"))
        #expect(DescriptorCache(directory: cache.path, identity: identity).entries == good.entries)

        // A file torn in place (no atomic rename, e.g. copied by hand) at any length: ignored.
        for cut in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 40)) {
            try Data(bytes.prefix(cut)).write(to: URL(fileURLWithPath: good.file))
            let torn = DescriptorCache(directory: cache.path, identity: identity)
            #expect(torn.entries.isEmpty)
            #expect(torn.loadProblem != nil)
        }
        // One flipped byte in the payload: the digest catches it.
        var flipped = bytes
        flipped[bytes.count / 2] ^= 0x01
        try Data(flipped).write(to: URL(fileURLWithPath: good.file))
        #expect(DescriptorCache(directory: cache.path, identity: identity).loadProblem == "digest mismatch")
        // The service recovers by describing again and saving a good file.
        let recovered = Self.service(PerceptualBackend(), cache: cache)
        _ = recovered.facts(for: Self.files, threads: 1)
        try recovered.saveCache()
        #expect(DescriptorCache(directory: cache.path, identity: identity).entries.count == 3)
    }

    @Test func `one bad file in a folder is reported and the rest are culled`() throws {
        let folder = try TemporaryDirectory(), cache = try TemporaryDirectory()
        try FileManager.default.copyItem(atPath: GoldenVision.path("burst/pb01.jpg"), toPath: folder.file("a.jpg"))
        let jpeg = try Data(contentsOf: URL(fileURLWithPath: GoldenVision.path("burst/pb07.jpg")))
        try jpeg.prefix(jpeg.count / 3).write(to: URL(fileURLWithPath: folder.file("b.jpg")))
        try Data("not an image".utf8).write(to: URL(fileURLWithPath: folder.file("c.png")))
        let paths = try PhotoFolder.imagePaths(in: folder.path)
        let report = try PhotoCuller(service: Self.service(PerceptualBackend(), cache: cache)).cull(paths, threads: 2)
        #expect(report.groups.map(\.pick) == [folder.file("a.jpg")])
        #expect(Set(report.failures.compactMap { if case .image(let e) = $0 { e.file } else { nil } }) == [folder.file("b.jpg"), folder.file("c.png")])
    }
}

/// A value shared with a Dispatch worker.
final class LockedBox<T: Sendable>: Sendable {
    private let value: Locked<T>
    init(_ value: T) { self.value = Locked(value) }
    func set(_ v: T) { value.withLock { $0 = v } }
    func get() -> T { value.withLock { $0 } }
}

import Platform
