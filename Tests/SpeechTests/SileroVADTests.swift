import Audio
import Foundation
import Models
import Speech
import TestSupport
import Testing

@Suite struct SileroVADTests {
    static func detector() throws -> VoiceActivityDetector {
        try VoiceActivityDetector(path: try #require(SpeechModels.silero, "silero_vad_16k.safetensors not installed: run scripts/setup.sh all"))
    }

    @Test func `frame probabilities and segments match the golden safetensors reference`() throws {
        let vad = try Self.detector()
        let records = try GoldenFiles.lines("vad/silero.jsonl")
        var worstOfAll: Float = 0
        for record in records {
            let clip = record.string("clip")
            let audio = try WAVFile.read(path: GoldenFiles.path(record.string("file")))
            let reference = record.object("safetensors")
            let expected = reference.floats("probs")
            let probs = vad.probabilities(audio.samples)
            #expect(probs.count == record.int("n_frames"), "\(clip)")
            var worst: Float = 0
            for (a, b) in zip(probs, expected) { worst = max(worst, abs(a - b)) }
            worstOfAll = max(worstOfAll, worst)
            // Measured 3.5e-5 over the six clips (2-core AVX2 machine); 2e-4 is about 6x that,
            // far below what moves a segment edge (the threshold is 0.5 with 0.15 hysteresis).
            #expect(worst < 2e-4, "\(clip): max abs difference \(worst)")
            let segments = SpeechTimestamps.segments(probabilities: probs, sampleCount: audio.samples.count)
            let want = reference.objects("segments").map { SpeechSegment(start: $0.int("start"), end: $0.int("end")) }
            #expect(segments == want, "\(clip)")
            // The same segments from the golden probabilities: the segmentation logic alone.
            #expect(SpeechTimestamps.segments(probabilities: expected, sampleCount: audio.samples.count) == want, "\(clip)")
        }
        print("[vad] \(records.count) clips: frame probability max abs difference \(worstOfAll)")
        GoldenRecords.checked(records.count, in: Self.self)
    }

    @Test func `silence and noise have no speech`() throws {
        let vad = try Self.detector()
        #expect(vad.detect([Float](repeating: 0, count: 48_000)).isEmpty)
        var random = SystemRandomNumberGenerator()
        let noise = (0..<48_000).map { _ in Float.random(in: -0.01...0.01, using: &random) }
        #expect(vad.detect(noise).isEmpty)
    }

    @Test func `segmentation ends speech after the minimum silence and pads both sides`() {
        // 10 speech frames, 10 silent frames, 10 speech frames: two segments padded by 480 samples.
        let probs: [Float] = Array(repeating: 0.9, count: 10) + Array(repeating: 0.1, count: 10) + Array(repeating: 0.9, count: 10)
        let segments = SpeechTimestamps.segments(probabilities: probs, sampleCount: 30 * 512)
        #expect(segments == [SpeechSegment(start: 0, end: 10 * 512 + 480), SpeechSegment(start: 20 * 512 - 480, end: 30 * 512)])
        // Too short to count (under 250 ms), then a gap shorter than the minimum silence joins.
        #expect(SpeechTimestamps.segments(probabilities: [0.9, 0.9, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1], sampleCount: 8 * 512).isEmpty)
        let joined = SpeechTimestamps.segments(probabilities: Array(repeating: 0.9, count: 10) + [0.1, 0.1] + Array(repeating: 0.9, count: 10),
                                               sampleCount: 22 * 512)
        #expect(joined.count == 1)
        var options = VADOptions()
        options.maxSpeechDurationS = 1
        let long = SpeechTimestamps.segments(probabilities: Array(repeating: 0.9, count: 100), sampleCount: 100 * 512, options: options)
        #expect(long.count > 1)
    }
}
