import Foundation
import Imaging
import Models
import Runtime

/// `ondevice classify IMG`: the image's five most likely ImageNet classes from EfficientNet-Lite0,
/// a visible check of the photo features (the same network gives them). `--repeat N` times N
/// more runs of the network alone (after the first, which warms caches) and prints ms per image.
enum ClassifyCommand {
    static func run(_ args: ArraySlice<String>) async throws {
        let a = try Arguments(args, options: ["model", "threads", "repeat"], flags: ["json"])
        guard let file = a.positionals.first, a.positionals.count == 1 else { throw CLIError.missingArgument("IMG") }
        let threads = try a.int("threads") ?? min(2, ProcessInfo.processInfo.activeProcessorCount)
        let photo = try ImageDecoder().decode(fileAt: file)
        // Leased through the runtime like every model kind (residency, capability, events).
        let lease = try await RuntimeModels.vision(a.string("model") ?? "efficientnet-lite0", runtime: try await RuntimeModels.runtime())
        let model = lease.model.model
        let start = DispatchTime.now().uptimeNanoseconds
        let input = EfficientNetPreprocessing.input(from: photo.image)
        let (_, logits) = model.run(input: input, threads: threads)
        var milliseconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        let repeats = try a.int("repeat") ?? 0
        if repeats > 0 {
            let begin = DispatchTime.now().uptimeNanoseconds
            for _ in 0..<repeats { _ = model.run(input: input, threads: threads) }
            milliseconds = Double(DispatchTime.now().uptimeNanoseconds - begin) / 1e6 / Double(repeats)
        }
        await lease.release()
        let probabilities = softmax(logits)
        let top = logits.indices.sorted { logits[$0] > logits[$1] }.prefix(5)
        if a.has("json") {
            try printJSON([
                "file": file, "model": "efficientnet-lite0", "milliseconds": milliseconds, "threads": threads,
                "top5": top.map { ["id": $0, "label": ImageNetLabels.names[$0], "logit": Double(logits[$0]),
                                   "probability": Double(probabilities[$0])] as [String: Any] },
            ])
            return
        }
        for id in top {
            writeOut(String(format: "%6.2f%%  %4ld  ", Double(probabilities[id]) * 100, id) + ImageNetLabels.names[id] + "\n")
        }
        if repeats > 0 {
            writeOut(String(format: "efficientnet-lite0: %.1f ms/image, %ld threads, mean of %ld runs\n", milliseconds, threads, repeats))
        }
    }

    /// Softmax in double: only for display, the logits are the model's output.
    static func softmax(_ logits: [Float]) -> [Float] {
        let peak = Double(logits.max() ?? 0)
        let exps = logits.map { Foundation.exp(Double($0) - peak) }
        let sum = exps.reduce(0, +)
        return exps.map { Float($0 / sum) }
    }
}
