import Foundation
import Models
import Testing

/// Seeds, scales and bad input on the Joe voice (a failure when it is not installed). A short
/// utterance keeps these cheap: "^ h ə l ˈ o ʊ $" with Piper's pad ids between.
@Suite struct PiperSynthesisTests {
    static let ids = [1, 0, 20, 0, 59, 0, 24, 0, 120, 0, 27, 0, 100, 0, 2]

    @Test func `noise with a seed is deterministic and different seeds differ`() throws {
        let voice = try PiperGoldenTests.voice()
        let scales = PiperScales()
        let a = try voice.synthesize(phonemeIDs: Self.ids, scales: scales, seed: 42, threads: 1)
        let b = try voice.synthesize(phonemeIDs: Self.ids, scales: scales, seed: 42, threads: 2)
        let c = try voice.synthesize(phonemeIDs: Self.ids, scales: scales, seed: 43, threads: 1)
        #expect(a.framesPerID == b.framesPerID)
        #expect(a.samples == b.samples)
        #expect(a.samples != c.samples)
        #expect(a.samples.count == 256 * a.framesPerID.reduce(0, +))
        #expect(a.samples.allSatisfy { $0.isFinite && abs($0) <= 1 })
    }

    @Test func `a larger length scale gives more frames`() throws {
        let voice = try PiperGoldenTests.voice()
        let normal = try voice.synthesize(phonemeIDs: Self.ids, scales: PiperGoldenTests.golden, seed: 0, threads: 1)
        var slow = PiperGoldenTests.golden
        slow.lengthScale = 2
        let slower = try voice.synthesize(phonemeIDs: Self.ids, scales: slow, seed: 0, threads: 1)
        for (a, b) in zip(normal.framesPerID, slower.framesPerID) { #expect(b >= 2 * a - 1 && b <= 2 * a) }
        #expect(slower.framesPerID.reduce(0, +) > normal.framesPerID.reduce(0, +))
    }

    @Test func `empty and out-of-vocabulary ids are typed errors`() throws {
        let voice = try PiperGoldenTests.voice()
        #expect(throws: ModelError.emptyPhonemeIDs) {
            try voice.synthesize(phonemeIDs: [], scales: PiperScales(), seed: 0, threads: 1)
        }
        #expect(throws: ModelError.phonemeIDOutOfRange(id: voice.vocabularySize, position: 2, vocabularySize: voice.vocabularySize)) {
            try voice.synthesize(phonemeIDs: [1, 0, voice.vocabularySize, 2], scales: PiperScales(), seed: 0, threads: 1)
        }
        #expect(throws: ModelError.phonemeIDOutOfRange(id: -1, position: 0, vocabularySize: voice.vocabularySize)) {
            try voice.synthesize(phonemeIDs: [-1], scales: PiperScales(), seed: 0, threads: 1)
        }
    }

    @Test func `a missing voice file is a format error`() {
        #expect(throws: ModelError.self) { try PiperVoiceModel.load(onnx: URL(fileURLWithPath: "/nonexistent/voice.onnx")) }
    }
}
