import Audio
import Foundation
import Models
import TestSupport
import Testing

/// The Joe voice against onnxruntime's output (golden/tts, noise scales 0, length scale 1).
/// Without the voice installed they fail (run scripts/setup.sh all).
@Suite struct PiperGoldenTests {
    static let voicePath = TestModels.path("en_US-joe-medium.onnx")

    nonisolated(unsafe) private static var cached: PiperVoiceModel?
    private static let lock = NSLock()

    static func voice() throws -> PiperVoiceModel {
        lock.lock()
        defer { lock.unlock() }
        if let cached { return cached }
        let path = try #require(voicePath, "en_US-joe-medium.onnx not installed: run scripts/setup.sh all")
        let model = try PiperVoiceModel.load(onnx: URL(fileURLWithPath: path))
        cached = model
        return model
    }

    static let golden = PiperScales(noiseScale: 0, lengthScale: 1, noiseW: 0)

    @Test func `durations equal onnxruntime's frames per phoneme id`() throws {
        let voice = try Self.voice()
        let records = try GoldenFiles.lines("tts/piper-joe.jsonl")
        for record in records {
            let audio = try voice.synthesize(phonemeIDs: record.ints("phoneme_ids"), scales: Self.golden, seed: 0, threads: 2)
            #expect(audio.framesPerID == record.ints("frames_per_phoneme_id"), "\(record.string("id"))")
            #expect(audio.samples.count == record.int("n_samples"), "\(record.string("id"))")
        }
        GoldenRecords.checked(records.count, in: Self.self)
    }

    /// Measured: t01_hello max abs diff 1.3e-5, SNR 98.0 dB; t02_weather 4.6e-5, 87.9 dB (the
    /// test prints them). The bounds, 2e-4 (4.3x) and 75 dB (an error amplitude 4.4x the
    /// measured one), leave room for summation order only: a wrong layer or a duration off by
    /// one frame misses them by orders of magnitude.
    @Test func `waveform matches onnxruntime's`() throws {
        let voice = try Self.voice()
        let records = try GoldenFiles.lines("tts/piper-joe.jsonl")
        for record in records {
            let id = record.string("id")
            let expected = try WAVFile.read(path: GoldenFiles.path(record.string("raw_wav"))).samples
            let audio = try voice.synthesize(phonemeIDs: record.ints("phoneme_ids"), scales: Self.golden, seed: 0, threads: 2)
            try #require(audio.samples.count == expected.count, "\(id)")
            var worst: Float = 0, signal: Double = 0, error: Double = 0
            for (a, b) in zip(audio.samples, expected) {
                worst = max(worst, abs(a - b))
                signal += Double(b) * Double(b)
                error += Double(a - b) * Double(a - b)
            }
            let snr = 10 * log10(signal / max(error, 1e-30))
            print("piper \(id): max abs diff \(worst), SNR \(snr) dB")
            #expect(worst < 2e-4, "\(id): max abs diff \(worst)")
            #expect(snr > 75, "\(id): SNR \(snr) dB")
        }
        GoldenRecords.checked(records.count, in: Self.self)
    }
}
