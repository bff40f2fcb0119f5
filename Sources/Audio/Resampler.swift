import Foundation

/// Band-limited sample-rate conversion by a rational factor, usable on a stream of chunks.
///
/// Polyphase windowed-sinc: for a rate change L/M (reduced by their gcd), output sample n sits
/// at input time n·M/L; it is the dot product of the inputs around that time with a low-pass
/// kernel h(τ) = fc·sinc(fc·τ)·kaiser(τ/H), τ in input samples. The cutoff fc is 0.945 of the
/// lower Nyquist frequency, so downsampling removes what would alias; H spans 16 zero
/// crossings of the kernel. With L ≤ 4096 and at most 2^18 taps in all, the L kernel phases
/// are tabulated once.
/// Samples before the start and (at `flush`) after the end count as silence.
package struct Resampler: Sendable {
    package let inputRate: Int
    package let outputRate: Int
    /// Reduced ratio: L outputs per M inputs.
    let up: Int, down: Int
    /// Taps each side of the centre.
    let halfWidth: Int
    let cutoff: Double
    /// (L, 2H) kernel phases, or nil when they are too many to tabulate.
    let phases: [[Float]]?

    /// Inputs not yet discarded; `pending[0]` is input sample number `pendingStart`.
    private var pending: [Float] = []
    private var pendingStart = 0
    /// Inputs received so far, and the next output sample number.
    private var received = 0
    private var produced = 0

    /// Sample rates resampled: every rate audio is recorded at, with room on either side.
    package static let rates = 1_000...1_000_000
    static let zeroCrossings = 16.0
    static let rolloff = 0.945
    static let kaiserBeta = 8.0

    package init(from inputRate: Int, to outputRate: Int) throws(AudioError) {
        // Below 1 kHz a few kilobytes of file would claim hours of audio to resample.
        for rate in [inputRate, outputRate] where !Self.rates.contains(rate) {
            throw .invalidSampleRate(rate)
        }
        self.inputRate = inputRate
        self.outputRate = outputRate
        let g = Self.gcd(inputRate, outputRate)
        up = outputRate / g
        down = inputRate / g
        cutoff = min(1, Double(up) / Double(down)) * Self.rolloff
        halfWidth = Int((Self.zeroCrossings / cutoff).rounded(.up))
        // A table of every phase's taps when it is small; an odd rate (728,865 Hz to 16 kHz: 3,200
        // phases of 1,544 taps) computes its taps per output sample instead of seconds up front.
        if up <= 4096 && up * 2 * halfWidth <= 1 << 18 {
            let (up, h, fc) = (up, halfWidth, cutoff)
            phases = (0..<up).map { p in
                (0..<(2 * h)).map { i in Float(Self.kernel(Double(i - h + 1) - Double(p) / Double(up), cutoff: fc, halfWidth: h)) }
            }
        } else {
            phases = nil
        }
    }

    /// Resamples a whole signal at once: `process` then `flush`. ⌈count·L/M⌉ samples.
    package mutating func resampleAll(_ samples: [Float]) -> [Float] {
        if up == down { return samples }
        return process(samples) + flush()
    }

    /// Takes the next chunk of input; returns every output sample it fully determines.
    package mutating func process(_ chunk: [Float]) -> [Float] {
        if up == down { return chunk }
        pending.append(contentsOf: chunk)
        received += chunk.count
        return produce(through: received, final: false)
    }

    /// Ends the stream: the outputs still owed, with silence after the last input.
    package mutating func flush() -> [Float] {
        if up == down { return [] }
        return produce(through: received, final: true)
    }

    private mutating func produce(through available: Int, final: Bool) -> [Float] {
        // Outputs n < ⌈received·L/M⌉ exist; non-final ones also need inputs up to centre + H.
        let total = (received * up + down - 1) / down
        var out: [Float] = []
        let h = halfWidth
        while produced < total {
            let centre = produced * down / up
            if !final && centre + h >= available { break }
            let phase = produced * down % up
            out.append(dot(centre: centre, phase: phase))
            produced += 1
        }
        // Drop inputs no later output can reach.
        let keepFrom = min(produced * down / up - h + 1, received)
        if keepFrom > pendingStart {
            pending.removeFirst(min(keepFrom - pendingStart, pending.count))
            pendingStart = keepFrom
        }
        return out
    }

    private func dot(centre: Int, phase: Int) -> Float {
        let h = halfWidth
        var sum: Float = 0
        let first = centre - h + 1
        let table = phases?[phase]
        for i in 0..<(2 * h) {
            let j = first + i
            guard j >= pendingStart, j - pendingStart < pending.count else { continue }
            let weight = table?[i] ?? Float(Self.kernel(Double(i - h + 1) - Double(phase) / Double(up), cutoff: cutoff, halfWidth: h))
            sum += weight * pending[j - pendingStart]
        }
        return sum
    }

    static func kernel(_ tau: Double, cutoff fc: Double, halfWidth h: Int) -> Double {
        let r = tau / Double(h)
        guard abs(r) < 1 else { return 0 }
        let x = fc * tau
        let sinc = x == 0 ? 1 : sin(Double.pi * x) / (Double.pi * x)
        return fc * sinc * besselI0(kaiserBeta * (1 - r * r).squareRoot()) / besselI0(kaiserBeta)
    }

    /// Modified Bessel function of the first kind, order 0, by its power series.
    static func besselI0(_ x: Double) -> Double {
        var sum = 1.0, term = 1.0
        let q = x * x / 4
        for k in 1..<60 {
            term *= q / Double(k * k)
            sum += term
            if term < sum * 1e-17 { break }
        }
        return sum
    }

    static func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }
}
