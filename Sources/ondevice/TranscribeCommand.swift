import Audio
import Foundation
import Runtime
import Speech

/// `ondevice transcribe FILE`: speech to text with Whisper. Prints timed lines, or one JSON
/// object (`--json`), or subtitles (`--srt`, `--vtt`); `--stream` prints partial and final
/// text as the audio is fed in real-time-sized chunks; `--vad` skips what Silero VAD finds silent;
/// `--words` times every word (an indented line each, or `words` in each JSON segment).
enum TranscribeCommand {
    static func run(_ args: ArraySlice<String>) async throws {
        let a = try Arguments(args, options: ["model", "beam", "threads", "language", "vad-model", "chunk-ms", "fit-window"],
                              flags: ["json", "srt", "vtt", "stream", "vad", "greedy", "fast", "words"])
        guard let file = a.positionals.first, a.positionals.count == 1 else { throw CLIError.missingArgument("FILE") }
        let formats = ["json", "srt", "vtt"].filter(a.has)
        if formats.count > 1 { throw CLIError.conflicting("--\(formats[0])", "--\(formats[1])") }
        let threads = try a.int("threads") ?? ProcessInfo.processInfo.activeProcessorCount
        guard threads > 0 else { throw CLIError.invalidValue(option: "--threads", value: "\(threads)", expected: "positive") }
        var options = TranscriptionOptions(language: a.string("language"), beamSize: try a.int("beam") ?? 5)
        if a.has("greedy") { options.beamSize = 1 }
        options.fittedWindowPadding = try FitWindowArgument.parse(a)
        options.wordTimestamps = a.has("words")
        guard (1...16).contains(options.beamSize) else {
            throw CLIError.invalidValue(option: "--beam", value: "\(options.beamSize)", expected: "1 to 16")
        }
        let clip = try AudioFile.read(path: file)
        let runtime = try await RuntimeModels.runtime()
        let whisper = try await RuntimeModels.whisper(a.string("model") ?? "whisper-tiny.en-ct2", threads: threads, runtime: runtime)
        let slot = whisper.model.checkOut(threads: threads)
        defer { whisper.model.checkIn(slot) }
        let transcriber = slot.transcriber
        var gate: VoiceActivityDetector?
        if a.has("vad") {
            gate = try await RuntimeModels.voiceActivity(a.string("vad-model") ?? "silero-vad-v6", runtime: runtime).model.detector()
        }
        if a.has("stream") {
            if a.has("srt") || a.has("vtt") { throw CLIError.conflicting("--stream", a.has("srt") ? "--srt" : "--vtt") }
            if a.has("words") { throw CLIError.conflicting("--stream", "--words") }
            if a.string("beam") == nil { options.beamSize = 1 }
            try await StreamTranscription.run(transcriber: transcriber, clip: clip, options: options, gate: gate,
                                              chunkMilliseconds: try a.int("chunk-ms") ?? 100, realTime: !a.has("fast"),
                                              json: a.has("json"))
            return
        }
        let result: Transcription
        if let gate {
            result = try transcriber.transcribe(clip, options: options, speechOnly: gate)
        } else {
            result = try transcriber.transcribe(clip, options: options)
        }
        switch formats.first {
        case "json":
            try printJSON([
                "text": result.text, "language": result.language, "language_probability": result.languageProbability,
                "duration": result.duration,
                "segments": result.segments.map { s in
                    ["id": s.id, "seek": s.seek, "start": rounded(s.start), "end": rounded(s.end), "text": s.text,
                     "tokens": s.tokens.map(Int.init), "temperature": Double(s.temperature), "avg_logprob": s.averageLogProb,
                     "compression_ratio": s.compressionRatio, "no_speech_prob": s.noSpeechProb,
                     "words": s.words.map { ["word": $0.word, "start": rounded($0.start), "end": rounded($0.end),
                                             "probability": $0.probability] as [String: Any] }] as [String: Any]
                },
            ])
        case "srt": writeOut(result.subtitles(.srt))
        case "vtt": writeOut(result.subtitles(.vtt))
        default:
            for s in result.segments {
                writeOut(String(format: "[%@ --> %@]", Transcription.timestamp(s.start, comma: false), Transcription.timestamp(s.end, comma: false)) + s.text + "\n")
                for w in s.words {
                    writeOut(String(format: "    [%@ --> %@] %@\n", Transcription.timestamp(w.start, comma: false),
                                    Transcription.timestamp(w.end, comma: false), w.word.trimmingCharacters(in: .whitespaces)))
                }
            }
        }
    }

    static func rounded(_ seconds: Double) -> Double { (seconds * 1000).rounded() / 1000 }
}
