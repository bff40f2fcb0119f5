import Audio
import Foundation
import Models
import Phonemes
import Speech
import TestSupport
import Testing

/// Text → audio through the phonemizer and the Joe voice: the golden sentences as piper-tts
/// writes them, Whisper hearing them back, and the sentence-by-sentence stream.
@Suite struct SpeechSynthesizerTests {
    static let configPath = TestModels.path("en_US-joe-medium.onnx.json")

    /// The Joe voice and its config; a failure when either is not installed.
    static func synthesizer() throws -> SpeechSynthesizer {
        let config = try #require(configPath, "en_US-joe-medium.onnx.json not installed: run scripts/setup.sh all")
        return SpeechSynthesizer(voice: try PiperGoldenTests.voice(), config: try PiperVoiceConfig(path: config))
    }

    static let deterministic = SynthesisOptions(noiseScale: 0, lengthScale: 1, noiseW: 0, seed: 0, threads: 2)

    /// Text in, Piper's 16-bit WAV out. Our raw waveform is within 2e-4 of onnxruntime's, so
    /// after normalization a sample may differ from Piper's by a few LSBs; measured: 1 LSB on
    /// t01 (555 of 31,488 samples differ), 3 LSB on t02 (1,868 of 68,864).
    @Test func `golden sentences give piper's PCM16 within a few LSBs`() throws {
        let synthesizer = try Self.synthesizer()
        let records = try GoldenFiles.lines("tts/piper-joe.jsonl")
        for record in records {
            let id = record.string("id")
            let speech = try synthesizer.synthesize(record.string("text"), options: Self.deterministic)
            let golden = try WAVFile.read(path: GoldenFiles.path(record.string("pcm16_wav")))
            #expect(speech.sampleRate == record.int("sample_rate"))
            try #require(speech.pcm16.count == golden.samples.count, "\(id)")
            var worst = 0, differing = 0
            for (a, b) in zip(speech.pcm16, golden.samples) {
                let d = abs(Int(a) - Int((b * 32768).rounded()))
                worst = max(worst, d)
                if d != 0 { differing += 1 }
            }
            print("tts \(id): PCM16 max |diff| \(worst) LSB, \(differing)/\(golden.samples.count) samples differ")
            #expect(worst <= 4, "\(id): \(worst) LSB")
            #expect(speech.metrics.sentences == 1)
        }
        GoldenRecords.checked(records.count, in: Self.self)
    }

    @Test func `whisper hears the synthesized golden sentences as their text`() throws {
        let synthesizer = try Self.synthesizer()
        let transcriber = try SpeechModels.transcriber(try #require(SpeechModels.tinyEnglish, "whisper tiny.en not installed"))
        let records = try GoldenFiles.lines("tts/piper-joe.jsonl")
        for record in records {
            let speech = try synthesizer.synthesize(record.string("text"), options: Self.deterministic)
            let clip = try AudioClip(samples: speech.samples, sampleRate: speech.sampleRate).resampled(to: 16_000)
            var options = TranscriptionOptions(language: "en", beamSize: 1)
            options.temperatures = [0]
            let heard = try transcriber.transcribe(clip, options: options).text
            print("tts \(record.string("id")): whisper heard \"\(heard)\"")
            #expect(Self.normalized(heard) == Self.normalized(record.string("text")), "\(heard)")
        }
        GoldenRecords.checked(records.count, in: Self.self)
    }

    @Test func `the stream yields one chunk per sentence, the first before the text is done`() async throws {
        let synthesizer = try Self.synthesizer()
        var chunks: [SpeechChunk] = []
        var metrics: SynthesisMetrics?
        for try await event in synthesizer.stream("It is late. The lights are off. Good night!", options: Self.deterministic) {
            switch event {
            case .chunk(let chunk): chunks.append(chunk)
            case .finished(let m): metrics = m
            }
        }
        #expect(chunks.map(\.index) == [0, 1, 2])
        #expect(chunks.map(\.text) == ["It is late.", "The lights are off.", "Good night!"])
        #expect(chunks.allSatisfy { !$0.samples.isEmpty && $0.sampleRate == 22_050 })
        let m = try #require(metrics)
        #expect(m.sentences == 3)
        #expect(m.firstChunkSeconds < m.computeSeconds)
        #expect(abs(m.audioSeconds - chunks.reduce(0) { $0 + $1.audioSeconds }) < 1e-9)
    }

    @Test func `cancelling stops before the next sentence`() throws {
        let synthesizer = try Self.synthesizer()
        var produced = 0
        #expect(throws: SpeechError.cancelled) {
            _ = try synthesizer.run("One. Two. Three. Four.", options: Self.deterministic,
                                    isCancelled: { produced >= 1 }) { _ in produced += 1 }
        }
        #expect(produced == 1)
    }

    @Test func `the same seed gives the same audio with noise on`() throws {
        let synthesizer = try Self.synthesizer()
        let options = SynthesisOptions(seed: 7, threads: 2)
        let a = try synthesizer.synthesize("Noise makes every reading new.", options: options)
        let b = try synthesizer.synthesize("Noise makes every reading new.", options: options)
        #expect(a.pcm16 == b.pcm16)
    }

    @Test func `PCM16 is normalized by the peak, clipped and truncated like piper's`() {
        #expect(PCM16.convert([0.5, -0.25, 0.1249, 0]) == [32767, -16383, 8185, 0])
        #expect(PCM16.convert([0, 0]) == [0, 0])
        #expect(PCM16.floats([32767, -32768, 1]).map { Int(($0 * 32768).rounded()) } == [32767, -32768, 1])
    }

    /// Lowercase letters and digits only: Whisper writes "OnDevice" as "on-device", and its
    /// punctuation is its own.
    static func normalized(_ text: String) -> String {
        var kept = ""
        for scalar in text.lowercased().unicodeScalars where CharacterSet.alphanumerics.contains(scalar) {
            kept.unicodeScalars.append(scalar)
        }
        return kept
    }
}
