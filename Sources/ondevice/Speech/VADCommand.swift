import CLISupport
import Foundation
import OnDevice

/// `ondevice vad FILE`: speech segments found by Silero VAD, as lines or one JSON object.
/// `--model` takes a catalog id, the safetensors file or the folder holding it.
enum VADCommand {
    static func run(_ args: ArraySlice<String>) async throws {
        let a = try Arguments(args, options: ["model", "threshold"], flags: ["json", "probabilities"])
        guard let file = a.positionals.first, a.positionals.count == 1 else { throw CLIError.missingArgument("FILE") }
        var options = SpeechDetectionOptions()
        if let t = try a.float("threshold") {
            guard t > 0 && t < 1 else { throw CLIError.invalidValue(option: "--threshold", value: "\(t)", expected: "between 0 and 1") }
            options.threshold = t
        }
        var configuration = OnDeviceAI.Configuration()
        if let model = a.string("model") { configuration.voiceActivityModel = model }
        let activity = try await OnDeviceAI(configuration: configuration).speechActivity(URL(fileURLWithPath: file), options: options)
        if a.has("json") {
            let rate = Double(SpeechActivity.sampleRate)
            var object: [String: Any] = [
                "duration": activity.duration,
                "segments": activity.regions.map { ["start": $0.start, "end": $0.end, "start_sample": Int(($0.start * rate).rounded()),
                                                    "end_sample": Int(($0.end * rate).rounded())] as [String: Any] },
            ]
            if a.has("probabilities") { object["probabilities"] = activity.frameProbabilities.map(Double.init) }
            try printJSON(object)
            return
        }
        for s in activity.regions { writeOut(String(format: "%.3f\t%.3f\n", s.start, s.end)) }
    }
}
