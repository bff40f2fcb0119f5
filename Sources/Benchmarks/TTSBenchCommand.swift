import CLISupport
import Foundation
import Runtime
import Speech

/// `ondevice bench-tts`: real-time factor of Piper synthesis (compute seconds over audio
/// seconds, Piper's definition; below 1 is faster than real time) per sentence and thread
/// count, printed like `llama-bench`. Compare with `scripts/bench-tts-reference.py`, which
/// times piper-tts on the same sentences with the same threads.
enum TTSBenchCommand {
    /// The golden TTS sentences (golden/tts/piper-joe.jsonl), the default workload.
    static let sentences = ["Hello from OnDevice.", "The weather today is sunny and warm, with a light breeze."]

    static func run(_ args: ArraySlice<String>) async throws {
        let a = try Arguments(args, options: ["voice", "threads", "repetitions"], flags: ["json"])
        let texts = a.positionals.isEmpty ? sentences : a.positionals
        let voiceId = a.string("voice") ?? "piper-en_US-joe-medium"
        let threadCounts = try (a.string("threads") ?? "1").split(separator: ",").map { s -> Int in
            guard let t = Int(s), t > 0 else { throw CLIError.invalidValue(option: "--threads", value: String(s), expected: "positive integers") }
            return t
        }
        let repetitions = max(1, try a.int("repetitions") ?? 3)
        let runtime = try await BenchModels.runtime()
        let lease = try await runtime.lease(ResidentPiperVoice.self, modelId: voiceId, options: LoadOptions())
        defer { Task { await lease.release() } }
        let synthesizer = lease.model.synthesizer
        var rows: [[String: Any]] = []
        if !a.has("json") {
            print("| voice | sentence | audio s | threads | best s | CPU s | RTF |")
            print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
        }
        for threads in threadCounts {
            let options = SynthesisOptions(seed: 0, threads: threads)
            var totalAudio = 0.0, totalBest = 0.0
            for text in texts {
                _ = try synthesizer.synthesize(text, options: options)  // warm-up: page in the weights
                var best = Double.infinity, bestCPU = 0.0, audio = 0.0
                for _ in 0..<repetitions {
                    let t0 = ContinuousClock.now, c0 = processCPUSeconds()
                    let speech = try synthesizer.synthesize(text, options: options)
                    let wall = ContinuousClock.now - t0, cpu = processCPUSeconds() - c0
                    let seconds = Double(wall.components.seconds) + Double(wall.components.attoseconds) * 1e-18
                    if seconds < best { (best, bestCPU, audio) = (seconds, cpu, speech.metrics.audioSeconds) }
                }
                totalAudio += audio
                totalBest += best
                rows.append(["voice": voiceId, "text": text, "audio_seconds": audio, "threads": threads, "seconds": best,
                             "cpu_seconds": bestCPU, "real_time_factor": best / audio])
                if !a.has("json") {
                    print(String(format: "| %@ | %@ | %.3f | %d | %.3f | %.3f | %.3f |", voiceId, text, audio, threads, best, bestCPU, best / audio))
                }
            }
            if !a.has("json") {
                print(String(format: "| %@ | all | %.3f | %d | %.3f | | %.3f |", voiceId, totalAudio, threads, totalBest, totalBest / totalAudio))
            }
        }
        if a.has("json") { try printJSON(["results": rows, "cpu": CPUInfo.summary]) } else { print("cpu: \(CPUInfo.summary)") }
    }
}
