import CLISupport
import Foundation
import OnDevice

/// `ondevice chat`: an interactive multi-turn conversation in the terminal. Each turn
/// re-renders the whole conversation with the model's template; the session's prompt cache
/// reuses every token of earlier turns, so only the new turn is evaluated.
///
/// `--tools calculate,current_time` (or `all`) lets the model call the built-in tools; each call
/// and its result is shown as it happens (`ChatCommand+Tools.swift`).
enum ChatCommand {
    static func run(_ args: ArraySlice<String>) async throws {
        let a = try Arguments(args, options: RuntimeOptions.valued.union(["system", "temperature", "seed", "max-tokens", "top-k", "top-p", "min-p", "repeat-penalty", "tools", "max-tool-calls", "lora"]),
                              flags: ["greedy", "json", "require-tool-call"])
        if a.has("greedy") && a.string("temperature") != nil { throw CLIError.conflicting("--greedy", "--temperature") }
        let tools = try toolChoice(a)
        if a.has("json") && tools == nil { throw CLIError.io("chat --json needs --tools (it prints each turn's calls and answer)") }
        // Through the public API: a chat session keeps the conversation and its KV cache, so each
        // turn evaluates only what is new.
        let ai = OnDeviceAI(configuration: try TextOpCommand.configuration(a))
        let model = ai.textModel(try await ModelLocator.reference(for: try a.require("model")))
        var textOptions = try TextOpCommand.textOptions(a)
        textOptions.adapters = try await LoRAChoice.all(a).map(\.lora)
        if let tools {
            if a.string("lora") != nil { throw CLIError.conflicting("--lora", "--tools") }
            try await runWithTools(a, model: model, options: textOptions, tools: tools.tools, toolOptions: tools.options)
            return
        }
        let chat = model.session(system: a.string("system"), options: textOptions)
        let interactive = isatty(STDIN_FILENO) != 0
        if interactive { print("Chatting with \(model.id). /reset clears, /exit or Ctrl-D quits.") }
        while let input = nextTurn(interactive: interactive) {
            if input == "/reset" {
                chat.reset()
                continue
            }
            do {
                for try await event in chat.respondStream(to: input) {
                    if case .partial(let text) = event { writeOut(text) }
                }
            } catch let error as OnDeviceError where error.code == .inputTooLong {
                print("\n[conversation is \(error.tokens ?? 0) tokens, over the \(error.limit ?? 0) this context allows; /reset to start over]")
                continue
            } catch let error as OnDeviceError where error.code == .noChatTemplate {
                throw CLIError.io("the model has no chat template; use 'ondevice generate --raw'")
            }
            writeOut("\n")
        }
    }

    /// The user's next line, trimmed and non-empty (`/reset` included); nil at end of input or
    /// on `/exit` / `/quit`.
    static func nextTurn(interactive: Bool) -> String? {
        while true {
            if interactive { writeOut("> ") }
            guard let line = readLine() else { return nil }
            let input = line.trimmingCharacters(in: .whitespaces)
            if input.isEmpty { continue }
            return input == "/exit" || input == "/quit" ? nil : input
        }
    }

}
