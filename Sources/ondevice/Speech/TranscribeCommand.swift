import CLISupport
import Foundation
import OnDevice

/// `ondevice transcribe FILE`: speech to text with Whisper, through the public API (the model by
/// catalog id or path, leased from the runtime). Prints timed lines, or one JSON object
/// (`--json`), or subtitles (`--srt`, `--vtt`); `--stream` prints partial and final text as the
/// audio is fed in real-time-sized chunks; `--vad` skips what Silero VAD finds silent; `--words`
/// times every word (an indented line each, or `words` in each JSON segment).
enum TranscribeCommand {
    static func run(_ args: ArraySlice<String>) async throws {
        let a = try Arguments(args, options: ["model", "beam", "threads", "language", "vad-model", "chunk-ms", "fit-window"],
                              flags: ["json", "srt", "vtt", "stream", "vad", "greedy", "fast", "words"])
        guard let file = a.positionals.first, a.positionals.count == 1 else { throw CLIError.missingArgument("FILE") }
        let formats = ["json", "srt", "vtt"].filter(a.has)
        if formats.count > 1 { throw CLIError.conflicting("--\(formats[0])", "--\(formats[1])") }
        let threads = try a.int("threads") ?? ProcessInfo.processInfo.activeProcessorCount
        guard threads > 0 else { throw CLIError.invalidValue(option: "--threads", value: "\(threads)", expected: "positive") }
        var options = TranscribeOptions(language: a.string("language"), beamSize: try a.int("beam") ?? 5, skipSilence: a.has("vad"))
        if a.has("greedy") { options.beamSize = 1 }
        options.fittedWindowPadding = try FitWindowArgument.parse(a)
        options.wordTimestamps = a.has("words")
        guard (1...16).contains(options.beamSize) else {
            throw CLIError.invalidValue(option: "--beam", value: "\(options.beamSize)", expected: "1 to 16")
        }
        var configuration = OnDeviceAI.Configuration()
        configuration.threads = threads
        if let model = a.string("model") { configuration.transcriptionModel = model }
        if let model = a.string("vad-model") { configuration.voiceActivityModel = model }
        let ai = OnDeviceAI(configuration: configuration)
        if a.has("stream") {
            if a.has("srt") || a.has("vtt") { throw CLIError.conflicting("--stream", a.has("srt") ? "--srt" : "--vtt") }
            if a.has("words") { throw CLIError.conflicting("--stream", "--words") }
            if a.string("beam") != nil { throw CLIError.conflicting("--stream", "--beam (live transcription decodes greedily)") }
            let chunk = try a.int("chunk-ms") ?? 100
            guard chunk > 0 else { throw CLIError.invalidValue(option: "--chunk-ms", value: "\(chunk)", expected: "positive") }
            let audio = try VoiceSession.audioChunks(of: URL(fileURLWithPath: file), milliseconds: chunk, realTime: !a.has("fast"))
            try await StreamTranscription.run(ai.transcribeStream(audio, options: options), json: a.has("json"))
            return
        }
        let result = try await ai.transcribe(URL(fileURLWithPath: file), options: options)
        switch formats.first {
        case "json":
            try printJSON([
                "text": result.text, "language": result.language, "language_probability": result.languageProbability,
                "duration": result.duration,
                "segments": result.segments.map { s in
                    ["id": s.id, "seek": s.seek, "start": rounded(s.start), "end": rounded(s.end), "text": s.text,
                     "tokens": s.tokens, "temperature": s.temperature, "avg_logprob": s.averageLogProbability,
                     "compression_ratio": s.compressionRatio, "no_speech_prob": s.noSpeechProbability,
                     "words": s.words.map { ["word": $0.word, "start": rounded($0.start), "end": rounded($0.end),
                                             "probability": $0.probability] as [String: Any] }] as [String: Any]
                },
            ])
        case "srt": writeOut(result.subtitles(.srt))
        case "vtt": writeOut(result.subtitles(.vtt))
        default:
            for s in result.segments {
                writeOut("[\(Transcript.timestamp(s.start, .vtt)) --> \(Transcript.timestamp(s.end, .vtt))]" + s.text + "\n")
                for w in s.words {
                    writeOut("    [\(Transcript.timestamp(w.start, .vtt)) --> \(Transcript.timestamp(w.end, .vtt))] "
                             + w.word.trimmingCharacters(in: .whitespaces) + "\n")
                }
            }
        }
    }

    static func rounded(_ seconds: Double) -> Double { (seconds * 1000).rounded() / 1000 }
}
