import CLISupport
import Foundation
import OnDevice

/// `ondevice classify IMG`: the image's five most likely ImageNet classes from EfficientNet-Lite0,
/// a visible check of the photo features (the same network gives them), through the public API
/// (`classify`; `--model` a catalog id or a `.pth` path). `--repeat N` times N more runs and
/// prints the network's mean milliseconds per image (decoding and resizing not counted).
enum ClassifyCommand {
    static func run(_ args: ArraySlice<String>) async throws {
        let a = try Arguments(args, options: ["model", "threads", "repeat"], flags: ["json"])
        guard let file = a.positionals.first, a.positionals.count == 1 else { throw CLIError.missingArgument("IMG") }
        let threads = try a.int("threads") ?? min(2, ProcessInfo.processInfo.activeProcessorCount)
        guard threads > 0 else { throw CLIError.invalidValue(option: "--threads", value: "\(threads)", expected: "positive") }
        let repeats = try a.int("repeat") ?? 0
        guard repeats >= 0 else { throw CLIError.invalidValue(option: "--repeat", value: "\(repeats)", expected: "0 or more") }
        var configuration = OnDeviceAI.Configuration()
        configuration.threads = threads
        if let model = a.string("model") { configuration.imageModel = model }
        let ai = OnDeviceAI(configuration: configuration)
        let url = URL(fileURLWithPath: file)
        let result = try await ai.classify(url, count: 5)
        var milliseconds = result.networkSeconds * 1000
        if repeats > 0 {
            var total = 0.0
            for _ in 0..<repeats { total += try await ai.classify(url, count: 1).networkSeconds }
            milliseconds = total * 1000 / Double(repeats)
        }
        if a.has("json") {
            try printJSON([
                "file": file, "model": result.model, "milliseconds": milliseconds, "threads": threads,
                "top5": result.labels.map { ["id": $0.classIndex, "label": $0.name, "logit": Double($0.logit),
                                             "probability": $0.probability] as [String: Any] },
            ])
            return
        }
        for label in result.labels {
            writeOut(String(format: "%6.2f%%  %4ld  ", label.probability * 100, label.classIndex) + label.name + "\n")
        }
        if repeats > 0 {
            writeOut(String(format: "%@: %.1f ms/image, %ld threads, mean of %ld runs\n", result.model, milliseconds, threads, repeats))
        }
    }
}
