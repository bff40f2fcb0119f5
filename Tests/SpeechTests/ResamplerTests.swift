import Audio
import Foundation
import Testing

@Suite struct ResamplerTests {
    static func tone(_ hz: Double, rate: Int, seconds: Double) -> [Float] {
        (0..<Int(Double(rate) * seconds)).map { Float(sin(2 * Double.pi * hz * Double($0) / Double(rate))) }
    }

    /// Amplitude of the `hz` component of `x` (a single-bin DFT over the middle of the signal).
    static func amplitude(_ x: [Float], hz: Double, rate: Int) -> Double {
        let slice = x[(x.count / 4)..<(3 * x.count / 4)]
        var re = 0.0, im = 0.0
        for (i, v) in slice.enumerated() {
            let a = 2 * Double.pi * hz * Double(i) / Double(rate)
            re += Double(v) * cos(a)
            im += Double(v) * sin(a)
        }
        return 2 * (re * re + im * im).squareRoot() / Double(slice.count)
    }

    @Test func `44.1 kHz to 16 kHz keeps a 1 kHz tone and removes a 10 kHz one`() throws {
        var r = try Resampler(from: 44_100, to: 16_000)
        let out = r.resampleAll(Self.tone(1000, rate: 44_100, seconds: 1))
        #expect(out.count == 16_000)
        #expect(abs(Self.amplitude(out, hz: 1000, rate: 16_000) - 1) < 0.01)
        var r2 = try Resampler(from: 44_100, to: 16_000)
        let aliased = r2.resampleAll(Self.tone(10_000, rate: 44_100, seconds: 1))
        // A 10 kHz tone would fold to 6 kHz; the filter must take it below -60 dB.
        let peak = aliased[1000..<15_000].map { abs($0) }.max() ?? 1
        #expect(peak < 0.001, "alias peak \(peak)")
    }

    @Test func `upsampling 8 kHz to 16 kHz interpolates a tone`() throws {
        var r = try Resampler(from: 8000, to: 16_000)
        let out = r.resampleAll(Self.tone(440, rate: 8000, seconds: 0.5))
        #expect(out.count == 8000)
        let ideal = Self.tone(440, rate: 16_000, seconds: 0.5)
        var worst: Float = 0
        for i in 500..<7500 { worst = max(worst, abs(out[i] - ideal[i])) }
        #expect(worst < 0.002, "max error \(worst)")
    }

    @Test func `chunked streaming gives the same samples as one call`() throws {
        let input = Self.tone(700, rate: 48_000, seconds: 0.3).enumerated().map { $1 + Float($0 % 13) * 0.01 }
        var whole = try Resampler(from: 48_000, to: 16_000)
        let expected = whole.resampleAll(input)
        var streamed = try Resampler(from: 48_000, to: 16_000)
        var out: [Float] = []
        var i = 0
        for size in [1, 7, 480, 3, 1000, 4096] + Array(repeating: 333, count: 40) where i < input.count {
            let end = min(input.count, i + size)
            out += streamed.process(Array(input[i..<end]))
            i = end
        }
        out += streamed.process(Array(input[i...]))
        out += streamed.flush()
        #expect(out.count == expected.count)
        #expect(zip(out, expected).allSatisfy { abs($0 - $1) < 1e-6 })
    }

    @Test func `a rate of zero is a typed error and equal rates pass through`() throws {
        #expect(throws: AudioError.invalidSampleRate(0)) { try Resampler(from: 0, to: 16_000) }
        let clip = AudioClip(samples: [1, 2, 3], sampleRate: 16_000)
        #expect(try clip.resampled(to: 16_000) == clip)
        #expect(try AudioClip(samples: [Float](repeating: 0, count: 22_050), sampleRate: 22_050).resampled(to: 16_000).samples.count == 16_000)
    }
}
