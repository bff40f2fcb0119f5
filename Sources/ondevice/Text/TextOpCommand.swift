import CLISupport
import Foundation
import OnDevice

/// `ondevice summarize|translate|proofread`: the Ops layer from the command line. Input is a
/// file or `-` for stdin; output streams on a terminal, or is one JSON object with `--json`.
enum TextOpCommand {
    static let samplingOptions: Set<String> = ["temperature", "seed", "max-tokens", "top-k", "top-p", "min-p", "repeat-penalty"]

    static func run(_ op: String, _ args: ArraySlice<String>) async throws {
        var valued = samplingOptions.union(["model", "threads", "context"])
        if op == "translate" { valued.formUnion(["to", "from"]) }
        if op == "summarize" { valued.insert("style") }
        let a = try Arguments(args, options: valued, flags: ["json", "greedy", "keep-end"])
        guard let source = a.positionals.first else { throw CLIError.missingArgument("FILE (or - for standard input)") }
        let text: String
        if source == "-" {
            text = readTextArgument("-")
        } else {
            guard let data = FileManager.default.contents(atPath: source) else { throw CLIError.io("cannot read '\(source)'") }
            text = String(decoding: data, as: UTF8.self)
        }
        let ai = OnDeviceAI(configuration: try configuration(a))
        let options = try textOptions(a)
        let stream: AsyncThrowingStream<TextEvent, Error>
        switch op {
        case "summarize":
            let styleName = a.string("style") ?? "paragraph"
            guard let style = SummaryStyle(rawValue: styleName) else {
                throw CLIError.invalidValue(option: "--style", value: styleName, expected: "paragraph or bullets")
            }
            stream = ai.summarizeStream(text, style: style, options: options)
        case "translate":
            stream = ai.translateStream(text, to: try a.require("to"), from: a.string("from"), options: options)
        default:
            stream = ai.proofreadStream(text, options: options)
        }
        try await emit(stream, json: a.has("json"))
    }

    static func configuration(_ a: Arguments) throws -> OnDeviceAI.Configuration {
        var c = OnDeviceAI.Configuration()
        if let m = a.string("model") { c.textModel = m }
        c.threads = try a.int("threads")
        c.contextLength = try a.int("context")
        return c
    }

    static func textOptions(_ a: Arguments) throws -> TextOptions {
        var o = a.has("greedy") ? TextOptions.greedy : TextOptions()
        if let v = try a.int("max-tokens") {
            guard v > 0 else { throw CLIError.invalidValue(option: "--max-tokens", value: String(v), expected: "positive") }
            o.maxTokens = v
        }
        o.stop = a.all("stop")
        if let v = try a.float("temperature") { o.temperature = v }
        if let v = try a.int("top-k") { o.topK = v }
        if let v = try a.float("top-p") { o.topP = v }
        if let v = try a.float("min-p") { o.minP = v }
        if let v = try a.float("repeat-penalty") { o.repetitionPenalty = v }
        if let s = a.string("seed") {
            guard let v = UInt64(s) else { throw CLIError.invalidValue(option: "--seed", value: s, expected: "a non-negative integer") }
            o.seed = v
        }
        if a.has("keep-end") { o.overflow = .keepEnd }
        return o
    }

    /// Streams partial text (and progress on stderr) to a terminal, or prints one JSON object.
    static func emit(_ stream: AsyncThrowingStream<TextEvent, Error>, json: Bool) async throws {
        let tty = isatty(STDERR_FILENO) != 0
        for try await event in stream {
            switch event {
            case .partial(let t): if !json { writeOut(t) }
            case .progress(let p):
                if tty { FileHandle.standardError.write(Data("[\(p.stage)]\n".utf8)) }
            case .finished(let r):
                if json {
                    let m = r.metrics
                    try printJSON(["text": r.text, "finish_reason": m.finishReason.rawValue, "metrics": [
                        "time_to_first_token": m.timeToFirstToken, "prompt_tokens": m.promptTokens,
                        "cached_prompt_tokens": m.cachedPromptTokens, "completion_tokens": m.completionTokens,
                        "tokens_per_second": m.tokensPerSecond, "model_calls": m.modelCalls,
                    ]])
                } else {
                    writeOut("\n")
                }
            }
        }
    }
}
