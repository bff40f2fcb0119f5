import Audio
import Foundation
import Speech
import TestSupport
import Testing

/// Transcripts of every golden clip against faster-whisper 1.2.1's (golden/asr): text, tokens
/// and seek exactly; segment times, no-speech probabilities and average log-probabilities within
/// the bounds below. Every clip of the set runs for each model and beam size, the 36 s one too:
/// it is the slowest, 2-7 s per configuration on 2 cores (base at beam 5 on all six clips takes
/// about 10 s), so it costs CI well under a minute in all four.
@Suite(.serialized) struct WhisperGoldenTests {
    // Bounds, each beside the largest difference measured over the 24 records (tiny.en and
    // base, beam 1 and 5) on a 2-core AVX2 machine. The reference rounds times to 3 decimals
    // and the probabilities to 6 (golden README, "ASR"), so no bound is below that rounding.
    /// Segment start/end, seconds. Measured 3.6e-15: timestamps are whole 0.01 s seek frames
    /// plus 0.02 s tokens, so one wrong token or seek is off by at least 0.01, ten times this.
    static let timeTolerance = 1e-3
    /// Measured 1.2e-6 (with the reference's rounding to 5e-7).
    static let noSpeechTolerance = 1e-5
    /// Measured 2.3e-6 (with the reference's rounding to 5e-7).
    static let logProbTolerance = 2e-5

    static func check(_ directory: String?, file: String, beam: Int) throws {
        let directory = try #require(directory, "Whisper model for \(file) not found: run scripts/setup.sh all")
        let transcriber = try SpeechModels.transcriber(directory)
        let records = try GoldenFiles.lines(file).filter { $0.int("beam_size") == beam }
        try #require(!records.isEmpty, "\(file) has no beam \(beam) records")
        var worstNoSpeech = 0.0, worstLogProb = 0.0, worstTime = 0.0
        var slowest = (clip: "", seconds: 0.0)
        for record in records {
            let clip = record.string("clip")
            let audio = try WAVFile.read(path: GoldenFiles.path(record.string("file")))
            var options = TranscriptionOptions(language: "en", beamSize: beam)
            options.temperatures = [0]
            let started = ContinuousClock.now
            let result = try transcriber.transcribe(audio, options: options)
            let elapsed = ContinuousClock.now - started
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
            if seconds > slowest.seconds { slowest = (clip, seconds) }
            let expected = record.objects("segments")
            #expect(result.text == record.string("text"), "\(clip) beam \(beam)")
            #expect(result.segments.count == expected.count, "\(clip) beam \(beam): \(result.segments.map(\.text))")
            for (got, want) in zip(result.segments, expected) {
                let time = max(abs(got.start - want.double("start")), abs(got.end - want.double("end")))
                let noSpeech = abs(got.noSpeechProb - want.double("no_speech_prob"))
                let logProb = abs(got.averageLogProb - want.double("avg_logprob"))
                worstTime = max(worstTime, time)
                worstNoSpeech = max(worstNoSpeech, noSpeech)
                worstLogProb = max(worstLogProb, logProb)
                #expect(got.text == want.string("text"), "\(clip) beam \(beam)")
                #expect(time <= Self.timeTolerance, "\(clip) beam \(beam): \(got.start)–\(got.end) vs \(want.double("start"))–\(want.double("end"))")
                #expect(got.tokens.map(Int.init) == want.ints("tokens"), "\(clip) beam \(beam) tokens")
                #expect(got.seek == want.int("seek"), "\(clip) beam \(beam) seek")
                #expect(noSpeech <= Self.noSpeechTolerance, "\(clip) no-speech \(got.noSpeechProb)")
                #expect(logProb <= Self.logProbTolerance, "\(clip) avg logprob \(got.averageLogProb)")
                #expect(abs(got.compressionRatio - want.double("compression_ratio")) < 1e-4, "\(clip) compression ratio")
            }
            #expect(result.language == "en")
        }
        print("[asr] \(file) beam \(beam): \(records.count) clips, max |diff| segment time \(worstTime) s, no_speech_prob \(worstNoSpeech), avg_logprob \(worstLogProb); slowest clip \(slowest.clip) \(slowest.seconds) s")
        GoldenRecords.checked(records.count, in: Self.self)
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

    @Test func `base beam 5 transcribes every clip as faster-whisper does`() throws {
        try Self.check(SpeechModels.base, file: "asr/whisper-base.jsonl", beam: 5)
    }
}
