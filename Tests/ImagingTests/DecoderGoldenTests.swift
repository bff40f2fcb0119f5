import Foundation
import Imaging
import ModelStore
import TestSupport
import Testing

/// Decoded pixels against `decoded_rgb_sha256` of the vision golden set (Pillow 13 with
/// libjpeg-turbo defaults; PNG is lossless), and the EXIF metadata the set documents.
@Suite struct DecoderGoldenTests {
    @Test func `every golden image decodes to the reference pixels and upright size`() throws {
        let records = try GoldenVision.records()
        #expect(records.count == 18)
        for record in records {
            let file = try #require(record["file"] as? String)
            let photo = try ImageDecoder().decode(fileAt: GoldenVision.path(file))
            let size = (record["oriented_size"] as? [Int]) ?? []
            #expect([photo.image.width, photo.image.height] == size, "\(file)")
            #expect(SHA256.hex(of: photo.image.pixels) == record["decoded_rgb_sha256"] as? String, "\(file)")
            let orientation = (record["exif_orientation"] as? Int) ?? 1
            #expect(photo.metadata.orientation.rawValue == orientation, "\(file)")
        }
        GoldenRecords.checked(records.count, in: Self.self)
    }

    @Test func `every golden JPEG rewritten as progressive decodes to the same reference pixels`() throws {
        let jpegs = try GoldenVision.records().filter { $0["format"] as? String == "JPEG" }
        try #require(!jpegs.isEmpty, "no JPEG records in features.jsonl")
        for record in jpegs {
            let file = try #require(record["file"] as? String)
            let baseline = try [UInt8](contentsOf: GoldenVision.path(file))
            let progressive = try JPEGEncoder.progressive(from: baseline)
            // SOF2 marks a progressive frame; the baseline files have SOF0.
            #expect(progressive.indices.dropLast().contains { progressive[$0] == 0xFF && progressive[$0 + 1] == 0xC2 }, "\(file)")
            // The transcoder copies no APP1 segment, so the EXIF orientation is applied here.
            let stored = try ImageDecoder().decode(bytes: progressive, file: file).image
            let orientation = try #require(ExifOrientation(rawValue: (record["exif_orientation"] as? Int) ?? 1))
            #expect(SHA256.hex(of: orientation.apply(to: stored).pixels) == record["decoded_rgb_sha256"] as? String, "\(file)")
        }
        GoldenRecords.checked(jpegs.count, in: Self.self)
    }

    @Test func `the EXIF 6 file is rotated clockwise and keeps its stored size`() throws {
        let photo = try ImageDecoder().decode(fileAt: GoldenVision.path("images/p06_chelsea_exif6.jpg"))
        #expect(photo.metadata.orientation == .right)
        #expect((photo.storedWidth, photo.storedHeight) == (266, 400))
        #expect((photo.image.width, photo.image.height) == (400, 266))
        // Oriented, it is the upright chelsea re-encoded: close to it, far from the stored layout.
        let upright = try ImageDecoder().decode(fileAt: GoldenVision.path("images/p01_chelsea.jpg")).image
        let diff = zip(photo.image.pixels, upright.pixels).map { abs(Int($0) - Int($1)) }.reduce(0, +)
        #expect(Double(diff) / Double(upright.pixels.count) < 4)
    }

    @Test func `burst capture times carry their sub-seconds across a second boundary`() throws {
        let decoder = ImageDecoder()
        let times = try (2...6).map { i in
            try #require(try decoder.metadata(fileAt: GoldenVision.path("burst/pb0\(i).jpg")).captureTime)
        }
        #expect(times[0].dateTime == "2024:06:15 10:04:00")
        let gaps = zip(times.dropFirst(), times).map { $0.seconds - $1.seconds }
        for gap in gaps { #expect(abs(gap - 0.3) < 1e-6) }
        // The big-endian EXIF of the rotated still has no capture time but must parse.
        let still = try decoder.metadata(fileAt: GoldenVision.path("images/p06_chelsea_exif6.jpg"))
        #expect(still.orientation == .right)
    }

    @Test func `progressive and baseline encodings of the same pixels decode identically`() throws {
        let source = try ImageDecoder().decode(fileAt: GoldenVision.path("images/p02_coffee.png")).image
        let baseline = try JPEGEncoder.encode(source, quality: 85)
        let progressive = try JPEGEncoder.encode(source, quality: 85, progressive: true)
        #expect(baseline != progressive)
        // A progressive stream has an SOF2 frame header.
        #expect(progressive.indices.dropLast().contains { progressive[$0] == 0xFF && progressive[$0 + 1] == 0xC2 })
        let a = try ImageDecoder().decode(bytes: baseline, file: "baseline.jpg").image
        let b = try ImageDecoder().decode(bytes: progressive, file: "progressive.jpg").image
        #expect(a == b)
        let meanError = zip(a.pixels, source.pixels).map { abs(Int($0) - Int($1)) }.reduce(0, +) / source.pixels.count
        #expect(meanError < 6)
    }

    @Test func `a reduced JPEG decode keeps at least the requested long side`() throws {
        let path = GoldenVision.path("images/p04_rocket.jpg")  // 266x400
        let half = try ImageDecoder().decode(fileAt: path, minimumLongSide: 150)
        #expect((half.image.width, half.image.height) == (133, 200))  // libjpeg rounds 266/2 up
        let full = try ImageDecoder().decode(fileAt: path, minimumLongSide: 300)
        #expect((full.image.width, full.image.height) == (266, 400))
    }
}
