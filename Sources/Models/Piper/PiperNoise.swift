import EngineSupport
import Foundation

/// The deterministic Gaussian noise of Piper synthesis: xoshiro256** (Blackman & Vigna) seeded
/// through SplitMix64, and Box–Muller pairs. The same seed gives the same samples on every
/// platform, so a voice's output is reproducible; it does not (and cannot) reproduce PyTorch's
/// or onnxruntime's random streams.
struct PiperNoise {
    private var state: (UInt64, UInt64, UInt64, UInt64)
    private var spare: Float?

    init(seed: UInt64) {
        var s = SplitMix64(seed: seed)
        state = (s.next(), s.next(), s.next(), s.next())
    }

    mutating func next() -> UInt64 {
        let result = ((state.1 &* 5) << 7 | (state.1 &* 5) >> 57) &* 9
        let t = state.1 << 17
        state.2 ^= state.0
        state.3 ^= state.1
        state.1 ^= state.2
        state.0 ^= state.3
        state.2 ^= t
        state.3 = state.3 << 45 | state.3 >> 19
        return result
    }

    /// A uniform in (0, 1], never 0, so its logarithm is finite.
    private mutating func uniform() -> Double { (Double(next() >> 11) + 1) * 0x1p-53 }

    /// A standard normal sample.
    mutating func normal() -> Float {
        if let spare {
            self.spare = nil
            return spare
        }
        let radius = (-2 * Foundation.log(uniform())).squareRoot(), angle = 2 * Double.pi * uniform()
        spare = Float(radius * sin(angle))
        return Float(radius * cos(angle))
    }

    /// `count` samples scaled by `scale`. Drawn even at scale 0, so the stream a seed gives
    /// depends only on the utterance's lengths, never on the other scales.
    mutating func normals(_ count: Int, scale: Float) -> [Float] {
        return (0..<count).map { _ in normal() * scale }
    }
}
