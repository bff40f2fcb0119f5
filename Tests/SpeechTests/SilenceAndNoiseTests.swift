import Audio
import Foundation
import Speech
import TestSupport
import Testing

/// Silence and noise in, no text out; unreadable audio in, a typed error out.
@Suite(.serialized) struct SilenceAndNoiseTests {
    static let silence = [Float](repeating: 0, count: 5 * 16_000)

    /// Gaussian noise at `rms`, from a fixed seed.
    static func noise(rms: Float, seconds: Int, seed: UInt64) -> [Float] {
        var state = seed
        func uniform() -> Float {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Float(state >> 40) / Float(1 << 24) + 1e-7
        }
        return (0..<(seconds * 16_000)).map { _ in rms * (-2 * logf(uniform())).squareRoot() * cosf(2 * .pi * uniform()) }
    }

    @Test(arguments: ["faster-whisper-tiny.en", "faster-whisper-base"])
    func `silence and noise give no text`(model marker: String) throws {
        guard let dir = SpeechModels.whisperDirectory(marker) else { Issue.record("\(marker) not installed"); return }
        let t = try SpeechModels.transcriber(dir)
        var options = TranscriptionOptions(language: "en", beamSize: 1)
        #expect(try t.transcribe(samples: Self.silence, options: options).segments.isEmpty)
        #expect(t.metrics.windows == 0)  // digital silence is not even encoded
        for (rms, seed) in [(Float(0.003), UInt64(1)), (0.05, 2), (0.3, 3)] {
            let result = try t.transcribe(samples: Self.noise(rms: rms, seconds: 6, seed: seed), options: options)
            #expect(result.text.isEmpty, "noise at rms \(rms): \(result.text)")
            #expect(t.metrics.windows == 1)
        }
        // Without the silence check, Whisper decodes digital silence; faster-whisper's rule of
        // skipping a window (no-speech probability and log-probability) does not catch it.
        options.silenceAmplitude = nil
        _ = try t.transcribe(samples: Self.silence, options: options)
        #expect(t.metrics.windows == 1)
    }

    @Test func `with VAD gating silence and noise never reach Whisper`() throws {
        guard let dir = SpeechModels.tinyEnglish, let vadPath = SpeechModels.silero else { Issue.record("models not installed"); return }
        let t = try SpeechModels.transcriber(dir)
        let vad = try VoiceActivityDetector(path: vadPath)
        for samples in [Self.silence, Self.noise(rms: 0.05, seconds: 6, seed: 9)] {
            let result = try t.transcribe(AudioClip(samples: samples, sampleRate: 16_000), options: TranscriptionOptions(language: "en"),
                                          speechOnly: vad)
            #expect(result.segments.isEmpty)
            #expect(t.metrics.windows == 0)
        }
    }

    @Test func `VAD gating keeps the speech and maps times back to the original audio`() throws {
        guard let dir = SpeechModels.tinyEnglish, let vadPath = SpeechModels.silero else { Issue.record("models not installed"); return }
        let t = try SpeechModels.transcriber(dir)
        let vad = try VoiceActivityDetector(path: vadPath)
        let clip = try WAVFile.read(path: GoldenFiles.path("audio/p06_piper_vad.wav"))
        let result = try t.transcribe(clip, options: TranscriptionOptions(language: "en", beamSize: 1), speechOnly: vad)
        #expect(result.text == "Hello, can you hear me? I will wait for your answer.")
        // The speech parts start at about 1.5 s and 4.8 s (golden/vad), not at 0 s.
        #expect(result.segments.first.map { $0.start > 1.0 && $0.start < 1.7 } == true, "\(result.segments.map(\.start))")
        #expect(result.segments.last.map { $0.end > 6.0 && $0.end < 7.2 } == true, "\(result.segments.map(\.end))")
    }

    @Test func `truncated or garbage audio is a typed error before any decoding`() throws {
        let good = WAVFile.encode(AudioClip(samples: [Float](repeating: 0.1, count: 1600), sampleRate: 16_000))
        #expect(throws: AudioError.truncated(chunk: "data", offset: 44, needed: 3200, fileSize: 1000)) {
            try WAVFile.decode(Array(good.prefix(1000)))
        }
        #expect(throws: AudioError.self) { try WAVFile.decode([UInt8](repeating: 0x41, count: 500)) }
        let dir = try TemporaryDirectory()
        let path = dir.path + "/bad.wav"
        FileManager.default.createFile(atPath: path, contents: Data(good.prefix(60)))
        #expect(throws: AudioError.self) { try WAVFile.read(path: path) }
    }
}
