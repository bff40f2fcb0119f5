import CLISupport
import Foundation
import OnDevice

/// `ondevice generate`: one completion, streamed to stdout (or one JSON object with `--json`).
enum GenerateCommand {
    static func run(_ args: ArraySlice<String>) async throws {
        let a = try Arguments(args, options: RuntimeOptions.valued.union(["temperature", "seed", "max-tokens", "top-k", "top-p", "min-p", "repeat-penalty", "stop", "system", "json-schema", "lora"]),
                              flags: ["raw", "special", "greedy", "json", "stats"])
        guard let promptArg = a.positionals.first else { throw CLIError.missingArgument("PROMPT") }
        guard a.positionals.count == 1 else { throw CLIError.io("expected one PROMPT argument (quote it), got \(a.positionals.count)") }
        if a.has("greedy") && a.string("temperature") != nil { throw CLIError.conflicting("--greedy", "--temperature") }
        if let schemaPath = a.string("json-schema") {
            try await structured(a, schemaPath: schemaPath, prompt: readTextArgument(promptArg))
            return
        }
        if a.has("special") && !a.has("raw") { throw CLIError.io("--special applies to a --raw prompt only") }
        // Through the public API like every door: the runtime leases the model (residency,
        // capability, events) and the text core renders the prompt.
        let ai = OnDeviceAI(configuration: try TextOpCommand.configuration(a))
        let model = ai.textModel(try await ModelLocator.reference(for: try a.require("model")))
        var options = try TextOpCommand.textOptions(a)
        options.parseSpecialTokens = a.has("special")
        let loras = try await LoRAChoice.all(a)
        options.adapters = loras.map(\.lora)
        let prompt = readTextArgument(promptArg)
        let raw = a.has("raw")
        if !raw, !(try await model.info().hasChatTemplate) {
            FileHandle.standardError.write(Data("ondevice: the model has no chat template; using the prompt as raw text\n".utf8))
        }
        if a.has("json") {
            let result = try await model.generate(prompt, system: a.string("system"), options: options, raw: raw)
            let loaded = try await ai.loadedAdapters()
            try printJSON([
                "prompt_ids": result.promptTokenIDs.map(Int.init), "generated_ids": result.tokenIDs.map(Int.init),
                "text": result.text, "finish_reason": result.metrics.finishReason.rawValue, "metrics": result.metrics.json,
                "adapters": loras.map { choice in choice.json(loaded.first { $0.path == choice.path }) },
            ])
            return
        }
        var final: TextMetrics?
        for try await event in model.generateStream(prompt, system: a.string("system"), options: options, raw: raw) {
            switch event {
            case .partial(let text): writeOut(text)
            case .progress: break
            case .finished(let result): final = result.metrics
            }
        }
        writeOut("\n")
        if let m = final, isatty(STDERR_FILENO) != 0 || a.has("stats") {
            FileHandle.standardError.write(Data(String(
                format: "[%d prompt tokens, %d generated, %.1f tok/s, first token %.0f ms, %@]\n",
                m.promptTokens, m.completionTokens, m.tokensPerSecond, m.timeToFirstToken * 1000,
                m.finishReason.rawValue).utf8))
        }
    }

    /// `generate --json-schema FILE PROMPT`: prints only the JSON document (valid against the
    /// schema) on stdout.
    static func structured(_ a: Arguments, schemaPath: String, prompt: String) async throws {
        guard let data = FileManager.default.contents(atPath: schemaPath) else { throw CLIError.io("cannot read '\(schemaPath)'") }
        let ai = OnDeviceAI(configuration: try TextOpCommand.configuration(a))
        var options = try TextOpCommand.textOptions(a)
        if a.string("max-tokens") == nil { options.maxTokens = 512 }
        let result = try await ai.generate(prompt, schema: String(decoding: data, as: UTF8.self), options: options)
        print(result.json)
    }
}
