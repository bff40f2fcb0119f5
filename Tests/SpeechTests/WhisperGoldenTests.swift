import Audio
import Engine
import Foundation
import Testing

/// Transcripts of every golden clip against faster-whisper 1.2.1's (golden/asr), word for word,
/// with segment times within 0.1 s.
@Suite(.serialized) struct WhisperGoldenTests {
    static func records(_ file: String) throws -> [[String: Any]] { try GoldenFiles.lines(file) }

    static func check(_ directory: String?, file: String, beam: Int, clips: Set<String>? = nil) throws {
        guard let directory else {
            Issue.record("model folder not found under $ONDEVICE_HOME")
            return
        }
        let transcriber = try SpeechModels.transcriber(directory)
        for record in try records(file) where record.int("beam_size") == beam {
            let clip = record.string("clip")
            if let clips, !clips.contains(clip) { continue }
            let audio = try WAVFile.read(path: GoldenFiles.path(record.string("file")))
            var options = TranscriptionOptions(language: "en", beamSize: beam)
            options.temperatures = [0]
            let result = try transcriber.transcribe(audio, options: options)
            let expected = record.objects("segments")
            #expect(result.text == record.string("text"), "\(clip) beam \(beam)")
            #expect(result.segments.count == expected.count, "\(clip) beam \(beam): \(result.segments.map(\.text))")
            for (got, want) in zip(result.segments, expected) {
                #expect(got.text == want.string("text"), "\(clip) beam \(beam)")
                #expect(abs(got.start - want.double("start")) <= 0.1 && abs(got.end - want.double("end")) <= 0.1,
                        "\(clip) beam \(beam): \(got.start)–\(got.end) vs \(want.double("start"))–\(want.double("end"))")
                #expect(got.tokens.map(Int.init) == want.ints("tokens"), "\(clip) beam \(beam) tokens")
                #expect(got.seek == want.int("seek"), "\(clip) beam \(beam) seek")
                #expect(abs(got.noSpeechProb - want.double("no_speech_prob")) < 0.01, "\(clip) no-speech \(got.noSpeechProb)")
                #expect(abs(got.averageLogProb - want.double("avg_logprob")) < 0.02, "\(clip) avg logprob \(got.averageLogProb)")
                #expect(abs(got.compressionRatio - want.double("compression_ratio")) < 1e-4, "\(clip) compression ratio")
            }
            #expect(result.language == "en")
        }
    }

    @Test func `tiny.en greedy transcribes every clip as faster-whisper does`() throws {
        try Self.check(SpeechModels.tinyEnglish, file: "asr/whisper-tiny-en.jsonl", beam: 1)
    }

    @Test func `tiny.en beam 5 transcribes every clip as faster-whisper does`() throws {
        try Self.check(SpeechModels.tinyEnglish, file: "asr/whisper-tiny-en.jsonl", beam: 5)
    }

    @Test func `base greedy transcribes every clip as faster-whisper does`() throws {
        try Self.check(SpeechModels.base, file: "asr/whisper-base.jsonl", beam: 1)
    }

    /// The 36 s clip with base at beam 5 takes the longest of all; it runs when
    /// ONDEVICE_FULL_ASR=1 (it passes; see the README's speech section).
    @Test func `base beam 5 transcribes the clips as faster-whisper does`() throws {
        let full = ProcessInfo.processInfo.environment["ONDEVICE_FULL_ASR"] == "1"
        let short: Set<String> = ["p01_piper_weather", "p02_piper_callback", "p03_espeak_fox", "p04_espeak_meeting", "p06_piper_vad"]
        try Self.check(SpeechModels.base, file: "asr/whisper-base.jsonl", beam: 5, clips: full ? nil : short)
    }
}
