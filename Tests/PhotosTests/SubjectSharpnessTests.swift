import Imaging
import Photos
import Testing

/// Sharpness inside a person mask, on constructed images (no model).
@Suite struct SubjectSharpnessTests {
    @Test func `only the masked pixels count`() {
        // Left half a one-pixel checkerboard (the sharpest detail there is), right half flat grey.
        let w = 40, h = 20
        var pixels: [UInt8] = []
        for y in 0..<h {
            for x in 0..<w {
                let v: UInt8 = x < w / 2 ? ((x + y) % 2 == 0 ? 255 : 0) : 128
                pixels += [v, v, v]
            }
        }
        let image = RGBImage(width: w, height: h, pixels: pixels)
        let left = (0..<(w * h)).map { Float($0 % w < w / 2 - 2 ? 1 : 0) }
        let right = (0..<(w * h)).map { Float($0 % w > w / 2 + 2 ? 0.9 : 0.2) }
        #expect((PersonMask.subjectSharpness(image, mask: left) ?? 0) > 1e5)
        #expect(PersonMask.subjectSharpness(image, mask: right) == 0)
        // No subject, a wrong-sized mask: no figure.
        #expect(PersonMask.subjectSharpness(image, mask: [Float](repeating: 0.5, count: w * h)) == nil)
        #expect(PersonMask.subjectSharpness(image, mask: [1, 1]) == nil)
    }
}
