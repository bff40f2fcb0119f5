import Foundation
import Imaging
import Photos
import TestSupport
import Testing

/// The golden burst (`burst.json`): groups as the ground truth says, the sharpest frame picked.
/// Nothing here is tuned to these images: the thresholds are the backend's own.
@Suite struct CullingGoldenTests {
    @Test func `sharpness is the golden variance of the Laplacian of luminance`() throws {
        let records = try GoldenVision.records()
        var worst = (diff: 0.0, file: "")
        for record in records {
            let file = try #require(record["file"] as? String)
            let expected = try #require((record["lapvar_y"] as? NSNumber)?.doubleValue)
            let image = try ImageDecoder().decode(fileAt: GoldenVision.path(file)).image
            let diff = abs(FrameQuality(image).sharpness - expected)
            if diff > worst.diff { worst = (diff, "\(file) (\(expected))") }
            // The reference is rounded to 4 decimals (up to 5e-5); Y is kept in float32 here.
            // Measured: max 4.8e-5 (on 62.5, so the rounding), 5.5e-6 relative. Bound: twice the
            // rounding plus 1e-6 relative for float32 sums on the sharpest images.
            #expect(diff <= 1e-4 + 1e-6 * expected, "\(file): \(expected) + \(diff)")
        }
        print("[photos] sharpness of \(records.count) golden images: max |diff| \(worst.diff) on \(worst.file)")
        GoldenRecords.checked(records.count, in: Self.self)
    }

    @Test func `the golden burst is grouped as its ground truth and its sharpest frame picked`() throws {
        let truth = try GoldenVision.json("burst.json")
        let cache = try TemporaryDirectory()
        let service = PhotoSimilarityService(backend: PerceptualBackend(),
                                             capability: .perceptual(PerceptualBackend().identity, reason: "test"),
                                             cacheDirectory: cache.path)
        let paths = try PhotoFolder.imagePaths(in: GoldenVision.path("burst"))
        #expect(paths.count == 7)
        let report = try PhotoCuller(service: service).cull(paths, threads: 2)
        #expect(report.failures.isEmpty)
        let relative = { (p: String) in "burst/" + (p as NSString).lastPathComponent }
        let groups = Set(report.groups.map { Set($0.files.map { relative($0.path) }) })
        let expected = Set(try #require(truth["groups"] as? [[String]], "burst.json has no groups").map(Set.init))
        #expect(groups == expected)
        let burst = try #require(report.groups.first { $0.files.count == 5 })
        #expect(burst.files.map { relative($0.path) } == truth["sharpness_order"] as? [String])
        #expect(relative(burst.pick) == "burst/pb03.jpg")
        GoldenRecords.checked(in: Self.self)
    }

    @Test func `perceptual similarity separates re-encodings of one picture from other pictures`() throws {
        let backend = PerceptualBackend()
        let names = ["p01_chelsea", "p02_coffee", "p03_astronaut", "p04_rocket", "p05_camera"]
        func describe(_ file: String) throws -> PhotoDescriptor {
            backend.describe(try ImageDecoder().decode(fileAt: GoldenVision.path("images/" + file)).image)
        }
        let jpegs = try names.map { try describe($0 + ".jpg") }
        let pngs = try names.map { try describe($0 + ".png") }
        for i in names.indices {
            #expect(try jpegs[i].similarity(to: pngs[i]) >= backend.sameSceneThreshold, "\(names[i])")
            for j in names.indices where j != i {
                #expect(try jpegs[i].similarity(to: pngs[j]) < backend.sameSceneThreshold, "\(names[i]) vs \(names[j])")
            }
        }
        // The EXIF-rotated file, once upright, matches the upright JPEG.
        #expect(try describe("p06_chelsea_exif6.jpg").similarity(to: jpegs[0]) >= backend.sameSceneThreshold)
    }
}
