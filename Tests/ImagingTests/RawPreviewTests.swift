import Foundation
import Imaging
import Testing

/// No real camera raw file is available, so these tests build SYNTHETIC containers: real JPEGs
/// wrapped in TIFF structures laid out the way NEF/ARW/DNG (preview in a SubIFD via
/// JPEGInterchangeFormat, sensor data as lossless JPEG beside it) and CR2 (full JPEG as IFD0's
/// strip) lay them out.
@Suite struct RawPreviewTests {
    static let fullJPEG = GoldenVision.path("images/p01_chelsea.jpg")   // 400x266

    /// A small baseline thumbnail and a lossless-JPEG (SOF3) "sensor data" stand-in.
    static func smallJPEG() throws -> [UInt8] {
        try JPEGEncoder.encode(RGBImage(width: 160, height: 106, pixels: Array(repeating: 90, count: 160 * 106 * 3)))
    }
    static let losslessStub: [UInt8] = [0xFF, 0xD8, 0xFF, 0xC3, 0x00, 0x0B, 0x0E, 0x0F, 0xA0, 0x17, 0x80,
                                        0x01, 0x01, 0x11, 0x00] + Array(repeating: 0x55, count: 4000)

    @Test(arguments: [false, true])
    func `a NEF-style container shows its largest JPEG preview, oriented and dated by the container`(bigEndian: Bool) throws {
        let full = try [UInt8](contentsOf: Self.fullJPEG)
        var tiff = TIFFBuilder(bigEndian: bigEndian)
        tiff.blobs = [try Self.smallJPEG(), full, Self.losslessStub, Array(repeating: 7, count: 96 * 64 * 3)]
        tiff.ifds = [
            // IFD0: an uncompressed RGB thumbnail strip, orientation, SubIFDs, Exif IFD.
            [(0x00FE, .long([1])), (0x0100, .long([96])), (0x0101, .long([64])), (0x0103, .short([1])),
             (0x0111, .blobOffset(3)), (0x0117, .blobLength(3)), (0x0112, .short([6])),
             (0x014A, .ifds([1, 2])), (0x8769, .ifds([3]))],
            // SubIFD: the full-size preview.
            [(0x00FE, .long([1])), (0x0103, .short([6])), (0x0201, .blobOffset(1)), (0x0202, .blobLength(1))],
            // SubIFD: the sensor data as lossless JPEG, bigger in bytes but not a picture.
            [(0x00FE, .long([0])), (0x0103, .short([7])), (0x0111, .blobOffset(2)), (0x0117, .blobLength(2))],
            // Exif IFD.
            [(0x9003, .ascii("2022:08:09 17:30:05")), (0x9291, .ascii("5"))],
            // IFD1 (chained): the small JPEG thumbnail.
            [(0x0201, .blobOffset(0)), (0x0202, .blobLength(0))],
        ]
        tiff.chain = [0, 4]
        let photo = try ImageDecoder().decode(bytes: tiff.build(), file: "synthetic.nef")
        let expected = try ImageDecoder().decode(fileAt: Self.fullJPEG).image
        #expect(photo.format == .tiffRaw)
        #expect(photo.metadata.orientation == .right)
        #expect(photo.image == ExifOrientation.right.apply(to: expected))
        let time = try #require(photo.metadata.captureTime)
        #expect(time.dateTime == "2022:08:09 17:30:05")
        #expect(time.seconds == (try #require(CaptureTime(dateTime: "2022:08:09 17:30:05"))).seconds + 0.5)
    }

    @Test func `a CR2-style container shows the JPEG in IFD0's strip`() throws {
        let full = try [UInt8](contentsOf: Self.fullJPEG)
        var tiff = TIFFBuilder()
        tiff.blobs = [full, try Self.smallJPEG()]
        tiff.ifds = [
            [(0x0103, .short([6])), (0x0111, .blobOffset(0)), (0x0117, .blobLength(0)), (0x0112, .short([1]))],
            [(0x0201, .blobOffset(1)), (0x0202, .blobLength(1))],
        ]
        tiff.chain = [0, 1]
        let photo = try ImageDecoder().decode(bytes: tiff.build(), file: "synthetic.cr2")
        #expect(photo.image == (try ImageDecoder().decode(fileAt: Self.fullJPEG)).image)
    }

    @Test func `a TIFF without a JPEG preview, or with a broken one, is a typed error`() throws {
        var plain = TIFFBuilder()
        plain.blobs = [Array(repeating: 1, count: 300)]
        plain.ifds = [[(0x0103, .short([1])), (0x0111, .blobOffset(0)), (0x0117, .blobLength(0))]]
        #expect(throws: ImagingError.unsupportedVariant(file: "plain.tif", format: .tiffRaw, detail: "no embedded JPEG preview")) {
            try ImageDecoder().decode(bytes: plain.build(), file: "plain.tif")
        }
        // A preview whose entropy-coded data is cut short inside the container.
        let full = try [UInt8](contentsOf: Self.fullJPEG)
        var cut = TIFFBuilder()
        cut.blobs = [Array(full.prefix(full.count / 2))]
        cut.ifds = [[(0x0201, .blobOffset(0)), (0x0202, .blobLength(0))]]
        #expect(throws: ImagingError.self) { try ImageDecoder().decode(bytes: cut.build(), file: "cut.arw") }
        // The container itself cut anywhere: an error, never a crash.
        var nef = TIFFBuilder()
        nef.blobs = [full]
        nef.ifds = [[(0x014A, .ifds([1]))], [(0x0201, .blobOffset(0)), (0x0202, .blobLength(0))]]
        let bytes = nef.build()
        for end in stride(from: 0, to: bytes.count - 1, by: 97) {
            #expect(throws: ImagingError.self) { try ImageDecoder().decode(bytes: Array(bytes.prefix(end)), file: "x") }
        }
    }

    @Test func `an IFD chain that loops back on itself terminates`() throws {
        var tiff = TIFFBuilder()
        tiff.blobs = [try [UInt8](contentsOf: Self.fullJPEG)]
        tiff.ifds = [[(0x014A, .ifds([0, 1]))], [(0x0201, .blobOffset(0)), (0x0202, .blobLength(0)), (0x014A, .ifds([0]))]]
        tiff.chain = [0, 1, 0]
        let photo = try ImageDecoder().decode(bytes: tiff.build(), file: "loop.dng")
        #expect(photo.image.width == 400)
    }
}
