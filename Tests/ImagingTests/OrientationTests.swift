import Foundation
import Imaging
import Testing

@Suite struct OrientationTests {
    /// A 3x2 image whose pixel (x, y) has R = x, G = y, so each output pixel says where it came from.
    static let probe = RGBImage(width: 3, height: 2, pixels: (0..<2).flatMap { y in (0..<3).flatMap { x in [UInt8(x), UInt8(y), 0] } })

    /// Source coordinates of the output rows, written out by hand from EXIF's definitions.
    static let expected: [ExifOrientation: [[(Int, Int)]]] = [
        .up: [[(0, 0), (1, 0), (2, 0)], [(0, 1), (1, 1), (2, 1)]],
        .upMirrored: [[(2, 0), (1, 0), (0, 0)], [(2, 1), (1, 1), (0, 1)]],
        .down: [[(2, 1), (1, 1), (0, 1)], [(2, 0), (1, 0), (0, 0)]],
        .downMirrored: [[(0, 1), (1, 1), (2, 1)], [(0, 0), (1, 0), (2, 0)]],
        .leftMirrored: [[(0, 0), (0, 1)], [(1, 0), (1, 1)], [(2, 0), (2, 1)]],
        // 90° clockwise: the first output row is the first stored column read bottom-up.
        .right: [[(0, 1), (0, 0)], [(1, 1), (1, 0)], [(2, 1), (2, 0)]],
        .rightMirrored: [[(2, 1), (2, 0)], [(1, 1), (1, 0)], [(0, 1), (0, 0)]],
        // 90° counter-clockwise: the first output row is the last stored column read top-down.
        .left: [[(2, 0), (2, 1)], [(1, 0), (1, 1)], [(0, 0), (0, 1)]],
    ]

    @Test(arguments: ExifOrientation.allCases)
    func `each orientation reads the stored pixel EXIF says`(orientation: ExifOrientation) throws {
        let out = orientation.apply(to: Self.probe)
        let rows = try #require(Self.expected[orientation])
        #expect(out.height == rows.count && out.width == rows[0].count)
        for (y, row) in rows.enumerated() {
            for (x, source) in row.enumerated() {
                let i = (y * out.width + x) * 3
                #expect(Int(out.pixels[i]) == source.0 && Int(out.pixels[i + 1]) == source.1, "\(orientation) at \(x),\(y)")
            }
        }
    }

    @Test(arguments: ExifOrientation.allCases, [false, true])
    func `the orientation tag in an EXIF block is applied in either byte order`(orientation: ExifOrientation, bigEndian: Bool) throws {
        let base = try ImageDecoder().decode(fileAt: GoldenVision.path("images/p04_rocket.jpg"))
        let jpeg = try [UInt8](contentsOf: GoldenVision.path("images/p04_rocket.jpg"))
        var tiff = TIFFBuilder(bigEndian: bigEndian)
        tiff.ifds = [[(0x0112, .short([orientation.rawValue])), (0x8769, .ifds([1]))],
                     [(0x9003, .ascii("2023:01:02 03:04:05")), (0x9291, .ascii("25"))]]
        let photo = try ImageDecoder().decode(bytes: insertingExif(tiff.build(), into: jpeg), file: "tagged.jpg")
        #expect(photo.metadata.orientation == orientation)
        #expect(photo.image == orientation.apply(to: base.image))
        let time = try #require(photo.metadata.captureTime)
        #expect(time.dateTime == "2023:01:02 03:04:05")
        let expected = Double(CaptureTime(dateTime: "2023:01:02 03:04:05")!.seconds) + 0.25
        #expect(time.seconds == expected)
    }

    @Test func `capture times count calendar days and apply a recorded UTC offset`() throws {
        let epoch = try #require(CaptureTime(dateTime: "1970:01:01 00:00:00"))
        #expect(epoch.seconds == 0)
        let leap = try #require(CaptureTime(dateTime: "2024:03:01 00:00:00"))
        let feb = try #require(CaptureTime(dateTime: "2024:02:28 00:00:00"))
        #expect(leap.seconds - feb.seconds == 2 * 86_400)
        let shifted = try #require(CaptureTime(dateTime: "2024:06:15 10:00:00", offset: "+02:00"))
        #expect(shifted.seconds == (try #require(CaptureTime(dateTime: "2024:06:15 08:00:00"))).seconds)
        #expect(CaptureTime(dateTime: "0000:00:00 00:00:00") == nil)
        #expect(CaptureTime(dateTime: "garbage") == nil)
    }
}

extension Array where Element == UInt8 {
    init(contentsOf path: String) throws {
        self.init(try Data(contentsOf: URL(fileURLWithPath: path)))
    }
}
