import Audio
import Foundation
import Speech
import Testing

/// Word timestamps from the alignment heads' cross-attention, checked against the audio itself
/// (its energy) and against faster-whisper 1.2.1 (`scripts/make-word-timestamps-reference.py`).
@Suite(.serialized) struct WordTimestampTests {
    static let clips = ["p01_piper_weather", "p03_espeak_fox"]

    func transcribe(_ clip: String, words: Bool = true) throws -> (Transcription, [Float]) {
        let directory = try #require(SpeechModels.tinyEnglish, "Whisper tiny.en not found: run scripts/setup.sh all")
        let transcriber = try SpeechModels.transcriber(directory)
        let audio = try WAVFile.read(path: GoldenFiles.path("audio/\(clip).wav"))
        var options = TranscriptionOptions(language: "en", beamSize: 1)
        options.temperatures = [0]
        options.wordTimestamps = words
        return (try transcriber.transcribe(audio, options: options), audio.samples)
    }

    /// Seconds of the first and last 10 ms frame whose RMS exceeds 0.02 of full scale, and the
    /// silent runs of at least 120 ms between them.
    func energy(_ samples: [Float]) -> (first: Double, last: Double, gaps: [ClosedRange<Double>]) {
        let frames = stride(from: 0, to: samples.count - 159, by: 160).map { i in
            (samples[i..<(i + 160)].reduce(Float(0)) { $0 + $1 * $1 } / 160).squareRoot()
        }
        let loud = frames.indices.filter { frames[$0] > 0.02 }
        var gaps: [ClosedRange<Double>] = []
        var run = 0
        for (i, v) in frames.enumerated() {
            if v <= 0.02 { run += 1; continue }
            if run >= 12 && i - run > loud[0] { gaps.append(Double(i - run) / 100...Double(i) / 100) }
            run = 0
        }
        return (Double(loud[0]) / 100, Double(loud[loud.count - 1] + 1) / 100, gaps)
    }

    @Test(arguments: clips)
    func `words spell each segment and follow the speech in the audio`(clip: String) throws {
        let (t, samples) = try transcribe(clip)
        let (first, last, gaps) = energy(samples)
        let words = t.segments.flatMap(\.words)
        try #require(!words.isEmpty)
        for s in t.segments {
            #expect(s.words.map(\.word).joined() == s.text)
            for w in s.words {
                #expect(w.start <= w.end && w.start >= s.start - 0.001 && w.end <= s.end + 0.001, "\(w) outside \(s.start)–\(s.end)")
                #expect(w.start >= 0 && w.end <= t.duration + 0.02)
                #expect(w.probability > 0 && w.probability <= 1)
            }
        }
        for (a, b) in zip(words, words.dropFirst()) { #expect(a.end <= b.start + 0.001, "\(a) then \(b)") }
        #expect(abs(words[0].start - first) <= 0.3, "first word at \(words[0].start), sound from \(first)")
        #expect(abs(words[words.count - 1].end - last) <= 0.4, "last word ends \(words[words.count - 1].end), sound until \(last)")
        if clip == "p01_piper_weather" {
            // The pause between the two sentences (about 1.97–2.19 s) falls between words.
            let pause = try #require(gaps.first { $0.upperBound - $0.lowerBound >= 0.15 })
            let middle = (pause.lowerBound + pause.upperBound) / 2
            for w in words { #expect(!(w.start < middle - 0.05 && w.end > middle + 0.05), "\(w) spans the pause \(pause)") }
        }
    }

    @Test(arguments: clips)
    func `word times agree with faster-whisper within 0.02 s`(clip: String) throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("word_timestamps_reference.json")
        let reference = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: [[String: Any]]])
        let expected = try #require(reference[clip]).flatMap { ($0["words"] as? [[String: Any]]) ?? [] }
        let words = try transcribe(clip).0.segments.flatMap(\.words)
        #expect(words.map(\.word) == expected.map { $0["word"] as? String ?? "" })
        var worst = 0.0
        for (w, e) in zip(words, expected) {
            worst = max(worst, abs(w.start - (e["start"] as? Double ?? .nan)), abs(w.end - (e["end"] as? Double ?? .nan)))
        }
        #expect(worst <= 0.02, "largest gap to faster-whisper: \(worst) s")
    }

    @Test func `without the option no word is timed and the text is unchanged`() throws {
        let (plain, _) = try transcribe("p01_piper_weather", words: false)
        let (timed, _) = try transcribe("p01_piper_weather")
        #expect(plain.segments.allSatisfy { $0.words.isEmpty })
        #expect(plain.text == timed.text)
    }
}
