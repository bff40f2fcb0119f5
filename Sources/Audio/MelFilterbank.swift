import Foundation

/// Triangular mel filters over the bins of a real FFT, Slaney-style: the mel scale is linear
/// below 1 kHz (200/3 Hz per mel) and logarithmic above (a factor 6.4 every 27 mels), and each
/// filter is scaled by 2 / (its bandwidth in Hz) so every channel has about equal energy.
/// This is librosa's `filters.mel(sr, n_fft, n_mels, htk=False, norm="slaney")`, which
/// Whisper's front end uses (80 bands for most models, 128 for large-v3).
package struct MelFilterbank: Sendable {
    package let melCount: Int
    package let binCount: Int
    /// (melCount, binCount) weights, row-major.
    package let weights: [Float]

    package init(sampleRate: Int, fftLength: Int, melCount: Int) {
        let bins = fftLength / 2 + 1
        let fMax = Double(sampleRate) / 2
        // Band edges: melCount + 2 points evenly spaced in mel between 0 Hz and Nyquist.
        let maxMel = Self.mel(ofHertz: fMax)
        let edges = (0..<(melCount + 2)).map { Self.hertz(ofMel: maxMel * Double($0) / Double(melCount + 1)) }
        var w = [Float](repeating: 0, count: melCount * bins)
        for m in 0..<melCount {
            let (lo, centre, hi) = (edges[m], edges[m + 1], edges[m + 2])
            let norm = 2 / (hi - lo)
            for b in 0..<bins {
                let f = Double(b) * Double(sampleRate) / Double(fftLength)
                let rising = (f - lo) / (centre - lo)
                let falling = (hi - f) / (hi - centre)
                w[m * bins + b] = Float(max(0, min(rising, falling)) * norm)
            }
        }
        self.melCount = melCount
        self.binCount = bins
        self.weights = w
    }

    static let linearStep = 200.0 / 3
    static let logStart = 1000.0
    static let logStep = log(6.4) / 27

    static func mel(ofHertz f: Double) -> Double {
        f < logStart ? f / linearStep : logStart / linearStep + log(f / logStart) / logStep
    }

    static func hertz(ofMel m: Double) -> Double {
        let startMel = logStart / linearStep
        return m < startMel ? m * linearStep : logStart * exp(logStep * (m - startMel))
    }
}
