import Engine
import Foundation
import Tokenizers

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
        let tools = try toolLoop(a)
        let runtime = try await RuntimeOptions(a)
        var options = try GenerateCommand.generationOptions(a)
        if let tools {
            if a.string("lora") != nil { throw CLIError.conflicting("--lora", "--tools") }
            try await runWithTools(a, runtime: runtime, options: options, loop: tools)
            return
        }
        if a.has("json") { throw CLIError.io("chat --json needs --tools (it prints each turn's calls and answer)") }
        let model = try runtime.load()
        options.adapters = try await LoRAArgument.all(a, model: model).map(\.scaled)
        let template = try model.chatTemplate()
        let session = runtime.session(model)
        var messages: [ChatMessage] = []
        if let system = a.string("system") { messages.append(ChatMessage(role: .system, content: system)) }
        let interactive = isatty(STDIN_FILENO) != 0
        if interactive { print("Chatting with \(URL(fileURLWithPath: runtime.modelPath).lastPathComponent). /reset clears, /exit or Ctrl-D quits.") }
        while let input = nextTurn(interactive: interactive) {
            if input == "/reset" {
                messages.removeAll { $0.role != .system }
                session.reset()
                continue
            }
            messages.append(ChatMessage(role: .user, content: input))
            let prompt = model.tokenizer.encode(try template.prompt(messages: messages, addGenerationPrompt: true))
            guard let result = try turn(session: session, prompt: prompt, options: options) else {
                messages.removeLast()
                continue
            }
            writeOut("\n")
            messages.append(ChatMessage(role: .assistant, content: result.text))
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

    /// Runs one assistant turn, streaming its text; nil when the conversation no longer fits.
    static func turn(session: Session, prompt: [Int32], options: GenerationOptions) throws -> GenerationResult? {
        do {
            return try Generator(session: session, options: options).run(prompt: prompt, onToken: { _, text in writeOut(text) })
        } catch {
            guard case .contextOverflow(let tokens, let ctx) = error else { throw error }
            print("\n[conversation is \(tokens) tokens, over the context of \(ctx); /reset to start over]")
            return nil
        }
    }
}
