import Imaging
import Testing

/// Every PNG colour type and depth becomes 8-bit RGB as Pillow's convert("RGB") makes it:
/// gray repeated, palette looked up, alpha and tRNS dropped (not composited), 16-bit samples
/// reduced to their high byte, low-depth gray scaled to 0...255.
@Suite struct PNGVariantTests {
    static let w = 11, h = 9  // odd sizes exercise partial bytes and Adam7's partial passes

    func decode(_ png: PNGWriter) throws -> [UInt8] {
        try ImageDecoder().decode(bytes: png.bytes(), file: "t.png").image.pixels
    }

    /// A deterministic sample for (x, y, channel).
    static func v(_ x: Int, _ y: Int, _ c: Int) -> UInt8 { UInt8((x * 23 + y * 41 + c * 67) % 256) }

    @Test(arguments: [false, true])
    func `8-bit RGB, plain or interlaced, is exact`(interlaced: Bool) throws {
        let rows = (0..<Self.h).map { y in (0..<Self.w).flatMap { x in (0..<3).map { Self.v(x, y, $0) } } }
        let png = PNGWriter(width: Self.w, height: Self.h, colorType: 2, bitDepth: 8, rows: rows, interlaced: interlaced)
        #expect(try decode(png) == rows.flatMap { $0 })
    }

    @Test func `16-bit RGBA keeps the high bytes and drops alpha`() throws {
        let rows = (0..<Self.h).map { y in (0..<Self.w).flatMap { x in (0..<4).flatMap { [Self.v(x, y, $0), Self.v(y, x, $0)] } } }
        let png = PNGWriter(width: Self.w, height: Self.h, colorType: 6, bitDepth: 16, rows: rows)
        let expected = (0..<Self.h).flatMap { y in (0..<Self.w).flatMap { x in (0..<3).map { Self.v(x, y, $0) } } }
        #expect(try decode(png) == expected)
    }

    @Test func `gray with alpha repeats the gray`() throws {
        let rows = (0..<Self.h).map { y in (0..<Self.w).flatMap { x in [Self.v(x, y, 0), Self.v(x, y, 1)] } }
        let png = PNGWriter(width: Self.w, height: Self.h, colorType: 4, bitDepth: 8, rows: rows)
        let expected = (0..<Self.h).flatMap { y in (0..<Self.w).flatMap { x in Array(repeating: Self.v(x, y, 0), count: 3) } }
        #expect(try decode(png) == expected)
    }

    @Test(arguments: [1, 2, 4])
    func `low-depth gray is scaled to the full range`(depth: Int) throws {
        let levels = 1 << depth
        let value = { (x: Int, y: Int) -> Int in (x + 3 * y) % levels }
        var rows: [[UInt8]] = []
        var expected: [UInt8] = []
        for y in 0..<Self.h {
            var samples: [Int] = []
            for x in 0..<Self.w {
                let s: Int = value(x, y)
                samples.append(s)
                let scaled = UInt8(s * 255 / (levels - 1))
                expected += [scaled, scaled, scaled]
            }
            rows.append(Self.pack(samples, depth: depth))
        }
        let png = PNGWriter(width: Self.w, height: Self.h, colorType: 0, bitDepth: UInt8(depth), rows: rows)
        #expect(try decode(png) == expected)
    }

    @Test(arguments: [2, 8])
    func `palette images look colours up and ignore tRNS`(depth: Int) throws {
        let entries = 1 << min(depth, 3)
        let palette: [UInt8] = (0..<entries).flatMap { (i: Int) -> [UInt8] in [UInt8(i * 30), UInt8(255 - i * 20), UInt8(i * 7)] }
        let index = { (x: Int, y: Int) -> Int in (x * 5 + y) % entries }
        var rows: [[UInt8]] = []
        var expected: [UInt8] = []
        for y in 0..<Self.h {
            var samples: [Int] = []
            for x in 0..<Self.w {
                let i: Int = index(x, y)
                samples.append(i)
                expected += palette[(i * 3)..<(i * 3 + 3)]
            }
            rows.append(Self.pack(samples, depth: depth))
        }
        let png = PNGWriter(width: Self.w, height: Self.h, colorType: 3, bitDepth: UInt8(depth), rows: rows,
                            palette: palette, transparency: [0, 128])
        #expect(try decode(png) == expected)
    }

    /// Packs samples of `depth` bits MSB first, padding the last byte.
    static func pack(_ samples: [Int], depth: Int) -> [UInt8] {
        if depth == 8 { return samples.map(UInt8.init) }
        var out: [UInt8] = []
        var bit = 0
        for s in samples {
            if bit % 8 == 0 { out.append(0) }
            out[out.count - 1] |= UInt8(s << (8 - depth - bit % 8))
            bit += depth
        }
        return out
    }
}
