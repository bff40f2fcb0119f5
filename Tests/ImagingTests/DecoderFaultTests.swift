import Foundation
import Imaging
import TestSupport
import Testing

/// Truncated, corrupt and unsupported inputs end in a typed error naming the file, never a crash.
@Suite struct DecoderFaultTests {
    /// Cut points: every byte of the first 64 (headers, tables), then 48 spread over the rest.
    static func cuts(_ count: Int) -> [Int] {
        Array(0..<Swift.min(64, count)) + (1..<48).map { count * $0 / 48 } + [count - 2, count - 1]
    }

    @Test(arguments: ["images/p01_chelsea.jpg", "images/p05_camera.png", "images/p02_coffee.png", "images/p06_chelsea_exif6.jpg"])
    func `a file cut anywhere is reported, not decoded`(name: String) throws {
        let bytes = try [UInt8](contentsOf: GoldenVision.path(name))
        for cut in Set(Self.cuts(bytes.count)).sorted() {
            do {
                _ = try ImageDecoder().decode(bytes: Array(bytes.prefix(cut)), file: "cut-\(cut)")
                Issue.record("\(name) cut at \(cut) of \(bytes.count) decoded")
            } catch {
                #expect(error.file == "cut-\(cut)")
                switch error {
                case .truncated, .corrupt, .unsupportedFormat: break
                default: Issue.record("\(name) cut at \(cut): \(error)")
                }
            }
        }
    }

    @Test func `a progressive JPEG cut in its later scans is reported as truncated`() throws {
        let source = try ImageDecoder().decode(fileAt: GoldenVision.path("images/p03_astronaut.png")).image
        let progressive = try JPEGEncoder.encode(source, progressive: true)
        for cut in stride(from: progressive.count / 4, to: progressive.count - 1, by: progressive.count / 9) {
            #expect(throws: ImagingError.self) {
                try ImageDecoder().decode(bytes: Array(progressive.prefix(cut)), file: "p.jpg")
            }
        }
    }

    @Test func `corrupt headers and data are typed errors`() throws {
        let jpeg = try [UInt8](contentsOf: GoldenVision.path("images/p01_chelsea.jpg"))
        let png = try [UInt8](contentsOf: GoldenVision.path("images/p05_camera.png"))
        // A JPEG whose frame header claims zero width.
        var zeroWidth = jpeg
        if let sof = zeroWidth.indices.dropLast().first(where: { zeroWidth[$0] == 0xFF && zeroWidth[$0 + 1] == 0xC0 }) {
            zeroWidth[sof + 7] = 0; zeroWidth[sof + 8] = 0
        }
        // Garbage after the SOI marker.
        let garbage: [UInt8] = [0xFF, 0xD8, 0xFF] + (0..<500).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        // A PNG whose IHDR CRC is wrong.
        var badCRC = png
        badCRC[29] ^= 0xFF
        // A PNG whose compressed image data is scrambled.
        var scrambled = png
        if let idat = (8..<(png.count - 4)).first(where: { png[$0..<($0 + 4)].elementsEqual(Array("IDAT".utf8)) }) {
            for i in (idat + 8)..<Swift.min(idat + 200, png.count - 12) { scrambled[i] ^= 0x5A }
        }
        for (name, bytes) in [("zero-width.jpg", zeroWidth), ("garbage.jpg", garbage), ("bad-crc.png", badCRC), ("scrambled.png", scrambled)] {
            #expect(throws: ImagingError.self, "\(name)") { try ImageDecoder().decode(bytes: bytes, file: name) }
            do { _ = try ImageDecoder().decode(bytes: bytes, file: name) } catch { #expect(error.file == name) }
        }
    }

    @Test func `unreadable and unknown files say so`() throws {
        let dir = try TemporaryDirectory()
        let gif = dir.file("a.gif")
        try Data("GIF89a....".utf8).write(to: URL(fileURLWithPath: gif))
        #expect(throws: ImagingError.unsupportedFormat(file: gif, leadingBytes: "47 49 46 38")) {
            try ImageDecoder().decode(fileAt: gif)
        }
        #expect(throws: ImagingError.unreadable(file: dir.file("none.jpg"), reason: "no such file")) {
            try ImageDecoder().decode(fileAt: dir.file("none.jpg"))
        }
        #expect(throws: ImagingError.unreadable(file: dir.path, reason: "is a directory")) {
            try ImageDecoder().decode(fileAt: dir.path)
        }
        let empty = dir.file("empty.jpg")
        try Data().write(to: URL(fileURLWithPath: empty))
        #expect(throws: ImagingError.self) { try ImageDecoder().decode(fileAt: empty) }
    }

    @Test func `a header larger than the pixel limit is refused before decoding`() throws {
        let jpeg = try [UInt8](contentsOf: GoldenVision.path("images/p01_chelsea.jpg"))
        #expect(throws: ImagingError.tooLarge(file: "big.jpg", width: 400, height: 266, limit: 1000)) {
            try ImageDecoder(maxPixels: 1000).decode(bytes: jpeg, file: "big.jpg")
        }
    }
}
