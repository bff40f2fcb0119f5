import Photos
import Testing

/// What the reader does beyond RapidOCR, on constructed decoder output (no model): spaces the
/// greedy decoder dropped, and letters two overlapping boxes both read.
@Suite struct TextAssemblyTests {
    /// `text` one character per piece, each `step` apart, with the space class's peak between
    /// pieces given by `space` (index of the gap → probability; 0 elsewhere).
    static func decoded(_ text: String, steps: [Int]? = nil, space: [Int: Float] = [:]) -> TextRecognition.Decoded {
        let pieces = text.map(String.init)
        return TextRecognition.Decoded(pieces: pieces, steps: steps ?? pieces.indices.map { $0 * 3 }, probabilities: pieces.map { _ in 0.9 },
                                       spaceBetween: (0..<max(0, pieces.count - 1)).map { space[$0] ?? 0 }, stepCount: pieces.count * 3)
    }

    @Test func `a space the model saw between two characters set apart is put back`() {
        // "Invoice#2024": the space class peaks at 0.45 between e and #, which sit 8 steps apart.
        let steps = [1, 5, 9, 13, 17, 21, 25, 33, 37, 41, 45, 49]
        let invoice = Self.decoded("Invoice#2024", steps: steps, space: [6: 0.45])
        #expect(invoice.text == "Invoice#2024" && invoice.spacedText == "Invoice #2024")
        // The same evidence between characters closer than the line's median spacing is no space.
        var close = steps
        for i in 7..<close.count { close[i] -= 6 }
        #expect(Self.decoded("Invoice#2024", steps: close, space: [6: 0.45]).spacedText == "Invoice#2024")
        // Too little evidence: no space.
        #expect(Self.decoded("Invoice#2024", steps: steps, space: [6: 0.09]).spacedText == "Invoice#2024")
        // Never a second space beside one the decoder emitted.
        #expect(Self.decoded("Total: $1", space: [5: 0.39, 6: 0.22]).spacedText == "Total: $1")
        #expect(Self.decoded("", space: [:]).spacedText == "")
        #expect(Self.decoded("a", space: [:]).spacedText == "a")
    }

    static func box(_ x0: Float, _ x1: Float, _ y0: Float = 20, _ y1: Float = 60) -> [SIMD2<Float>] {
        [SIMD2(x0, y0), SIMD2(x1, y0), SIMD2(x1, y1), SIMD2(x0, y1)]
    }

    @Test func `a letter two overlapping boxes on one line both read is kept once`() {
        // golden p01: "fox jumps" ends at x 569, "s over the lazy" (300 px, 15 pieces) starts at 549.
        let lines = [TextLine(decoded: Self.decoded("fox jumps"), box: Self.box(359, 569)),
                     TextLine(decoded: Self.decoded("s over the lazy"), box: Self.box(549, 849)),
                     TextLine(decoded: Self.decoded("dog."), box: Self.box(846, 934))]
        let assembled = TextReader.withoutDoubleReadings(lines)
        #expect(assembled.map(\.text) == ["fox jumps", "over the lazy", "dog."])
        #expect(assembled[1].rawText == "s over the lazy")
        // A small overlap (under half a character) or different letters: nothing dropped.
        let apart = TextReader.withoutDoubleReadings([TextLine(decoded: Self.decoded("Date:"), box: Self.box(32, 145)),
                                                      TextLine(decoded: Self.decoded("03/11/2025"), box: Self.box(137, 318))])
        #expect(apart.map(\.text) == ["Date:", "03/11/2025"])
        // The same letters on another line: nothing dropped.
        let below = TextReader.withoutDoubleReadings([TextLine(decoded: Self.decoded("jumps"), box: Self.box(359, 569)),
                                                      TextLine(decoded: Self.decoded("sat"), box: Self.box(549, 609, 80, 120))])
        #expect(below.map(\.text) == ["jumps", "sat"])
    }
}
