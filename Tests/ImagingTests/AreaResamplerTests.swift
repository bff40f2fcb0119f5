import Imaging
import Testing

@Suite struct AreaResamplerTests {
    @Test func `an integer factor averages whole blocks`() {
        // 4x2 gray values 0..7, halved: each output is the mean of a 2x2 block.
        let plane = LuminancePlane(width: 4, height: 2, values: (0..<8).map(Float.init))
        let half = plane.areaDownscaled(width: 2, height: 1)
        let expected: [Float] = [2.5, 4.5]  // (0+1+4+5)/4, (2+3+6+7)/4
        #expect(half.values == expected)
    }

    @Test func `a fractional factor weights the cut samples by coverage`() {
        // 3 samples to 2: output 0 covers [0, 1.5) = 1 * a + 0.5 * b over 1.5.
        let plane = LuminancePlane(width: 3, height: 1, values: [0, 30, 90])
        let out = plane.areaDownscaled(width: 2, height: 1)
        #expect(abs(out.values[0] - 10) < 1e-5)
        #expect(abs(out.values[1] - 70) < 1e-5)
    }

    @Test func `the mean is preserved and a flat image stays flat`() {
        let image = RGBImage(width: 37, height: 23, pixels: (0..<(37 * 23 * 3)).map { UInt8(($0 * 7) % 256) })
        let plane = LuminancePlane(image)
        let small = plane.areaDownscaled(width: 10, height: 7)
        let mean = { (v: [Float]) in v.reduce(0, +) / Float(v.count) }
        #expect(abs(mean(small.values) - mean(plane.values)) < 0.01)
        let flat = RGBImage(width: 31, height: 17, pixels: Array(repeating: 200, count: 31 * 17 * 3))
        #expect(flat.areaDownscaled(maxSide: 8).pixels.allSatisfy { $0 == 200 })
        #expect(flat.areaDownscaled(maxSide: 8).width == 8)
        #expect(flat.areaDownscaled(maxSide: 100) == flat)
    }
}
