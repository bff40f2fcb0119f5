import Audio
import Foundation
import TestSupport
import Testing

@Suite struct MelSpectrogramTests {
    @Test func `the Slaney filterbank equals librosa's to float precision`() throws {
        let golden = try GoldenFiles.npy("asr/mel-filters-80x201.npy")
        #expect(golden.shape == [80, 201])
        let bank = MelFilterbank(sampleRate: 16_000, fftLength: 400, melCount: 80)
        #expect(bank.weights.count == golden.values.count)
        var worst: Float = 0
        for (a, b) in zip(bank.weights, golden.values) { worst = max(worst, abs(a - b)) }
        print("[mel] filterbank max abs difference \(worst)")
        #expect(worst < 1e-7, "max abs difference \(worst)")
        GoldenRecords.checked(in: Self.self)
    }

    @Test func `the log-mel spectrogram of a clip matches faster-whisper's`() throws {
        let clip = try WAVFile.read(path: GoldenFiles.path("audio/p01_piper_weather.wav"))
        #expect(clip.sampleRate == 16_000 && clip.samples.count == 65_759)
        let golden = try GoldenFiles.npy("asr/mel-p01_piper_weather.npy")
        let mel = WhisperFeatureExtractor().compute(clip.samples)
        #expect([mel.melCount, mel.frameCount] == golden.shape)
        var worst: Float = 0
        for (a, b) in zip(mel.values, golden.values) { worst = max(worst, abs(a - b)) }
        // The golden README: an independent float64 implementation matched to 3.3e-6.
        print("[mel] log-mel max abs difference \(worst)")
        #expect(worst < 2e-5, "max abs difference \(worst)")
        GoldenRecords.checked(in: Self.self)
    }

    @Test func `a 400-point FFT equals the direct DFT`() {
        let n = 400
        let fft = FFT(count: n)
        var re = (0..<n).map { sin(Double($0) * 0.37) + 0.25 * cos(Double($0 * $0) * 0.01) }
        var im = (0..<n).map { Double($0 % 7) * 0.1 }
        let (xr, xi) = (re, im)
        var sr = [Double](repeating: 0, count: n), si = sr
        fft.forward(re: &re, im: &im, scratchRe: &sr, scratchIm: &si)
        var worst = 0.0
        for k in [0, 1, 2, 7, 57, 199, 200, 201, 333, 399] {
            var dr = 0.0, di = 0.0
            for t in 0..<n {
                let a = -2 * Double.pi * Double(k * t % n) / Double(n)
                dr += xr[t] * cos(a) - xi[t] * sin(a)
                di += xr[t] * sin(a) + xi[t] * cos(a)
            }
            worst = max(worst, abs(dr - re[k]), abs(di - im[k]))
        }
        #expect(worst < 1e-9, "max abs difference \(worst)")
    }

    @Test func `FFTs of other lengths equal the direct DFT`() {
        for n in [1, 2, 3, 8, 12, 49, 64, 77, 160, 512] {
            let fft = FFT(count: n)
            var re = (0..<n).map { cos(Double($0) * 1.3) }
            var im = (0..<n).map { sin(Double($0) * 0.11) }
            let (xr, xi) = (re, im)
            var sr = [Double](repeating: 0, count: n), si = sr
            fft.forward(re: &re, im: &im, scratchRe: &sr, scratchIm: &si)
            for k in 0..<n {
                var dr = 0.0, di = 0.0
                for t in 0..<n {
                    let a = -2 * Double.pi * Double(k * t % n) / Double(n)
                    dr += xr[t] * cos(a) - xi[t] * sin(a)
                    di += xr[t] * sin(a) + xi[t] * cos(a)
                }
                #expect(abs(dr - re[k]) < 1e-9 && abs(di - im[k]) < 1e-9, "n \(n) bin \(k)")
            }
        }
    }

    @Test func `a window past the end is padded with zeros in the log-mel domain`() {
        let mel = LogMelSpectrogram(melCount: 2, frameCount: 3, values: [1, 2, 3, 4, 5, 6])
        #expect(mel.window(start: 1, count: 5, length: 4) == [2, 3, 0, 0, 5, 6, 0, 0])
        #expect(mel.window(start: 5, count: 5, length: 2) == [0, 0, 0, 0])
    }
}
