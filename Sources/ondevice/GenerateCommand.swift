import Engine
import Foundation
import OnDevice
import Tokenizers

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
        let runtime = try await RuntimeOptions(a)
        var options = try generationOptions(a)
        let model = try runtime.load()
        let adapters = try await LoRAArgument.all(a, model: model)
        options.adapters = adapters.map(\.scaled)
        if a.has("special") && !a.has("raw") { throw CLIError.io("--special applies to a --raw prompt only") }
        let prompt = try promptTokens(model: model, text: readTextArgument(promptArg), raw: a.has("raw"), system: a.string("system"),
                                      special: a.has("special"))
        let session = runtime.session(model)
        if a.has("json") {
            let result = try Generator(session: session, options: options).run(prompt: prompt)
            try printJSON([
                "prompt_ids": result.promptIds.map(Int.init), "generated_ids": result.generatedIds.map(Int.init),
                "text": result.text, "finish_reason": result.metrics.finishReason.rawValue, "metrics": result.metrics.json,
                "adapters": adapters.map(\.json),
            ])
            return
        }
        var final: GenerationMetrics?
        for try await event in generateStream(session: session, prompt: prompt, options: options) {
            switch event {
            case .token(_, let text): writeOut(text)
            case .finished(let result): final = result.metrics
            }
        }
        writeOut("\n")
        if let m = final, isatty(STDERR_FILENO) != 0 || a.has("stats") {
            FileHandle.standardError.write(Data(String(
                format: "[%d prompt tokens, %d generated, %.1f tok/s, first token %.0f ms, %@]\n",
                m.promptTokens, m.completionTokens, m.generationTokensPerSecond, m.timeToFirstToken * 1000,
                m.finishReason.rawValue).utf8))
        }
    }

    static func generationOptions(_ a: Arguments) throws -> GenerationOptions {
        var o = GenerationOptions()
        o.maxTokens = try a.int("max-tokens") ?? 256
        guard o.maxTokens > 0 else { throw CLIError.invalidValue(option: "--max-tokens", value: String(o.maxTokens), expected: "positive") }
        if a.has("greedy") { o.sampling = .greedy }
        if let t = try a.float("temperature") { o.sampling.temperature = t }
        if let s = a.string("seed") {
            guard let v = UInt64(s) else { throw CLIError.invalidValue(option: "--seed", value: s, expected: "a non-negative integer") }
            o.sampling.seed = v
        }
        if let k = try a.int("top-k") { o.sampling.topK = k }
        if let p = try a.float("top-p") { o.sampling.topP = p }
        if let p = try a.float("min-p") { o.sampling.minP = p }
        if let r = try a.float("repeat-penalty") { o.sampling.repetitionPenalty = r }
        o.stop = a.all("stop")
        return o
    }

    /// The prompt's token ids: the chat template around one user turn, or the raw text
    /// (with BOS as the model's metadata says) for `--raw` and for models without a template.
    /// Control-token text in the prompt is text, as in the SDK and the server, unless `--raw
    /// --special` asks for a hand-written prompt in the model's own format.
    static func promptTokens(model: LanguageModel, text: String, raw: Bool, system: String?, special: Bool = false) throws -> [Int32] {
        if !raw, let template = try? model.chatTemplate() {
            var messages: [ChatMessage] = []
            if let system { messages.append(ChatMessage(role: .system, content: system)) }
            messages.append(ChatMessage(role: .user, content: text))
            return model.tokenizer.encode(try template.prompt(messages: messages, addGenerationPrompt: true))
        }
        if !raw {
            FileHandle.standardError.write(Data("ondevice: the model has no chat template; using the prompt as raw text\n".utf8))
        }
        return model.tokenizer.encode(text, addBOS: nil, parseSpecial: raw && special)
    }

    /// `generate --json-schema FILE PROMPT`: prints only the JSON document (valid against the
    /// schema) on stdout.
    static func structured(_ a: Arguments, schemaPath: String, prompt: String) async throws {
        guard let data = FileManager.default.contents(atPath: schemaPath) else { throw CLIError.io("cannot read '\(schemaPath)'") }
        let ai = try OnDevice(configuration: try TextOpCommand.configuration(a))
        var options = try TextOpCommand.textOptions(a)
        if a.string("max-tokens") == nil { options.maxTokens = 512 }
        let result = try await ai.generate(prompt, schema: String(decoding: data, as: UTF8.self), options: options)
        print(result.json)
    }
}
