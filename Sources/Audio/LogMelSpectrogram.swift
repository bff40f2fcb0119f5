import Foundation

/// A log-mel spectrogram, (melCount, frameCount) row-major: `values[m * frameCount + t]`.
package struct LogMelSpectrogram: Sendable, Equatable {
    package let melCount: Int
    package let frameCount: Int
    package var values: [Float]

    package init(melCount: Int, frameCount: Int, values: [Float]) {
        precondition(values.count == melCount * frameCount)
        self.melCount = melCount
        self.frameCount = frameCount
        self.values = values
    }

    /// Frames `start ..< start + count` (clipped to the spectrogram), padded with `fill` to
    /// `length` frames: the encoder's fixed-size window. (melCount, length) row-major.
    package func window(start: Int, count: Int, length: Int, fill: Float = 0) -> [Float] {
        var out = [Float](repeating: fill, count: melCount * length)
        let begin = max(0, min(start, frameCount))
        let n = max(0, min(count, frameCount - begin, length))
        guard n > 0 else { return out }
        values.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for m in 0..<melCount {
                    (dst.baseAddress! + m * length).update(from: src.baseAddress! + m * frameCount + begin, count: n)
                }
            }
        }
        return out
    }
}

/// Whisper's log-mel front end, exactly as faster-whisper 1.2.1's `FeatureExtractor` computes it
/// (which is what its transcripts depend on; OpenAI's code differs in padding):
/// 1. append `padding` zero samples (160);
/// 2. STFT: reflect-pad n_fft/2 on both sides, frames of 400 every 160 samples, periodic Hann
///    window, power |X|² of the 201 real-FFT bins, and drop the last frame — so there are
///    (samples + padding) / 160 frames;
/// 3. Slaney mel filters (`MelFilterbank`);
/// 4. log10(max(mel, 1e-10)), then max(x, max over the whole clip − 8), then (x + 4) / 4.
package struct WhisperFeatureExtractor: Sendable {
    package static let sampleRate = 16_000
    package static let fftLength = 400
    package static let hopLength = 160
    /// Frames in one 30 s encoder window.
    package static let windowFrames = 3000

    package let filterbank: MelFilterbank
    let fft: FFT
    /// Periodic Hann window (numpy `hanning(401)[:-1]`).
    let hann: [Double]
    /// Per mel band, the FFT bins with a non-zero weight (the filters are narrow triangles).
    let bands: [Range<Int>]

    package init(melCount: Int = 80) {
        let n = Self.fftLength
        let bank = MelFilterbank(sampleRate: Self.sampleRate, fftLength: n, melCount: melCount)
        filterbank = bank
        fft = FFT(count: n)
        hann = (0..<n).map { 0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(n)) }
        let bins = bank.binCount
        bands = (0..<melCount).map { m in
            let row = bank.weights[(m * bins)..<((m + 1) * bins)]
            guard let lo = row.firstIndex(where: { $0 != 0 }), let hi = row.lastIndex(where: { $0 != 0 }) else { return 0..<0 }
            return (lo - m * bins)..<(hi - m * bins + 1)
        }
    }

    package var melCount: Int { filterbank.melCount }

    /// The log-mel spectrogram of 16 kHz `samples`.
    package func compute(_ samples: [Float], padding: Int = 160) -> LogMelSpectrogram {
        let n = Self.fftLength, hop = Self.hopLength, half = n / 2
        let length = samples.count + padding
        let frames = length / hop
        let mels = melCount
        guard frames > 0 else { return LogMelSpectrogram(melCount: mels, frameCount: 0, values: []) }
        var padded = [Double](repeating: 0, count: length + n)
        for i in 0..<padded.count {
            let j = Self.reflect(i - half, length: length)
            padded[i] = j < samples.count ? Double(samples[j]) : 0
        }
        var out = [Float](repeating: 0, count: mels * frames)
        // Frames are independent: split them over the cores for long clips.
        let parts = min(ProcessInfo.processInfo.activeProcessorCount, max(1, frames / 500))
        nonisolated(unsafe) let outPointer = out.withUnsafeMutableBufferPointer { $0.baseAddress! }
        let input = padded
        DispatchQueue.concurrentPerform(iterations: parts) { part in
            let range = (frames * part / parts)..<(frames * (part + 1) / parts)
            logMel(input, frames: range, totalFrames: frames, into: outPointer)
        }
        var top = -Float.infinity
        for v in out where v > top { top = v }
        let floor = top - 8
        for i in 0..<out.count { out[i] = (max(out[i], floor) + 4) / 4 }
        return LogMelSpectrogram(melCount: mels, frameCount: frames, values: out)
    }

    /// log10 mel energies of `frames` into `out` (mel-major, `totalFrames` per row).
    private func logMel(_ padded: [Double], frames: Range<Int>, totalFrames: Int, into out: UnsafeMutablePointer<Float>) {
        let n = Self.fftLength, bins = filterbank.binCount
        var re = [Double](repeating: 0, count: n), im = re, sr = re, si = re
        var power = [Double](repeating: 0, count: bins)
        for t in frames {
            let start = t * Self.hopLength
            for i in 0..<n {
                re[i] = padded[start + i] * hann[i]
                im[i] = 0
            }
            fft.forward(re: &re, im: &im, scratchRe: &sr, scratchIm: &si)
            for b in 0..<bins { power[b] = re[b] * re[b] + im[b] * im[b] }
            for m in 0..<melCount {
                var e = 0.0
                for b in bands[m] { e += Double(filterbank.weights[m * bins + b]) * power[b] }
                out[m * totalFrames + t] = Float(log10(max(e, 1e-10)))
            }
        }
    }

    /// numpy's "reflect" padding index: mirror at both ends without repeating the edge sample.
    static func reflect(_ j: Int, length: Int) -> Int {
        guard length > 1 else { return 0 }
        let period = 2 * (length - 1)
        var k = abs(j) % period
        if k >= length { k = period - k }
        return k
    }
}
