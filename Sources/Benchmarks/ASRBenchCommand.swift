import CLISupport
import Audio
import Foundation
import Speech

/// `ondevice bench-asr`: real-time factor of Whisper transcription (processing time over audio
/// time; below 1 is faster than real time) per clip and thread count, with the encoder and
/// decoder split out, printed like `llama-bench`.
enum ASRBenchCommand {
    static func run(_ args: ArraySlice<String>) async throws {
        let a = try Arguments(args, options: ["model", "threads", "beam", "repetitions", "fit-window"], flags: ["json"])
        guard !a.positionals.isEmpty else { throw CLIError.missingArgument("FILE...") }
        let modelId = a.string("model") ?? "whisper-tiny.en-ct2"
        let directory = try await SpeechModelFiles.whisperDirectory(modelId)
        let threadCounts = try (a.string("threads") ?? "1,2").split(separator: ",").map { s -> Int in
            guard let t = Int(s), t > 0 else { throw CLIError.invalidValue(option: "--threads", value: String(s), expected: "positive integers") }
            return t
        }
        let beam = try a.int("beam") ?? 5
        let repetitions = try a.int("repetitions") ?? 1
        let transcriber = try Transcriber(directory: directory, threads: 1)
        var options = TranscriptionOptions(language: "en", beamSize: beam)
        options.temperatures = [0]
        options.fittedWindowPadding = try FitWindowArgument.parse(a)
        var rows: [[String: Any]] = []
        if !a.has("json") {
            print("| model | clip | audio s | threads | beam | encode s | decode s | total s | CPU s | RTF |")
            print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        }
        for file in a.positionals {
            let clip = try AudioFile.read(path: file)
            for threads in threadCounts {
                transcriber.threads = threads
                _ = try transcriber.transcribe(clip, options: options)  // warm-up: page in the weights
                var best = TranscriptionMetrics()
                var bestWall = Double.infinity, bestCPU = 0.0
                for _ in 0..<max(1, repetitions) {
                    let t0 = ContinuousClock.now, c0 = processCPUSeconds()
                    _ = try transcriber.transcribe(clip, options: options)
                    let wall = Transcriber.seconds(ContinuousClock.now - t0), cpu = processCPUSeconds() - c0
                    if wall < bestWall { (bestWall, bestCPU, best) = (wall, cpu, transcriber.metrics) }
                }
                let rtf = bestWall / clip.duration
                let name = URL(fileURLWithPath: file).lastPathComponent
                rows.append(["model": modelId, "clip": name, "audio_seconds": clip.duration, "threads": threads, "beam": beam,
                             "fitted_window_padding": options.fittedWindowPadding.map { $0 as Any } ?? NSNull(),
                             "encode_seconds": best.encodeSeconds, "decode_seconds": best.decodeSeconds,
                             "mel_seconds": best.melSeconds, "windows": best.windows, "tokens": best.tokens,
                             "total_seconds": bestWall, "cpu_seconds": bestCPU, "real_time_factor": rtf])
                if !a.has("json") {
                    print(String(format: "| %@ | %@ | %.2f | %d | %d | %.3f | %.3f | %.3f | %.3f | %.3f |", modelId, name, clip.duration,
                                 threads, beam, best.encodeSeconds, best.decodeSeconds, bestWall, bestCPU, rtf))
                }
            }
        }
        if a.has("json") { try printJSON(["results": rows, "cpu": CPUInfo.summary]) } else { print("cpu: \(CPUInfo.summary)") }
    }
}

