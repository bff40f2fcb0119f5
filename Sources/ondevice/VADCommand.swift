import Audio
import Foundation
import Runtime
import Speech

/// `ondevice vad FILE`: speech segments found by Silero VAD, as lines or one JSON object.
enum VADCommand {
    static func run(_ args: ArraySlice<String>) async throws {
        let a = try Arguments(args, options: ["model", "threshold"], flags: ["json", "probabilities"])
        guard let file = a.positionals.first, a.positionals.count == 1 else { throw CLIError.missingArgument("FILE") }
        let clip = try AudioFile.read(path: file)
        var options = VADOptions()
        if let t = try a.float("threshold") {
            guard t > 0 && t < 1 else { throw CLIError.invalidValue(option: "--threshold", value: "\(t)", expected: "between 0 and 1") }
            options.threshold = t
        }
        let runtime = try await RuntimeModels.runtime()
        let lease = try await RuntimeModels.voiceActivity(a.string("model") ?? "silero-vad-v6", runtime: runtime)
        let vad = lease.model.detector(options: options)
        let samples = try clip.resampled(to: 16_000).samples
        let probabilities = vad.probabilities(samples)
        await lease.release()
        let segments = SpeechTimestamps.segments(probabilities: probabilities, sampleCount: samples.count, options: options)
        if a.has("json") {
            var object: [String: Any] = [
                "duration": Double(samples.count) / 16_000,
                "segments": segments.map { ["start": $0.startSeconds, "end": $0.endSeconds,
                                            "start_sample": $0.start, "end_sample": $0.end] as [String: Any] },
            ]
            if a.has("probabilities") { object["probabilities"] = probabilities.map(Double.init) }
            try printJSON(object)
            return
        }
        for s in segments { writeOut(String(format: "%.3f\t%.3f\n", s.startSeconds, s.endSeconds)) }
    }
}
