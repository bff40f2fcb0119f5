import Foundation
import StructuredOutput
import Synchronization
import TextGeneration
import Tokenizers
import Tools

/// `ondevice chat --tools …`: each user turn runs the tool-call loop. On a terminal the answer
/// streams and every call and result appears on its own line as it happens; `--json` prints one
/// JSON object per turn instead (answer, calls with their results, figures of each model call).
extension ChatCommand {
    /// The loop for `--tools` (names, comma-separated, or `all`); nil without the option.
    static func toolLoop(_ a: Arguments) throws -> ToolCallLoop? {
        guard let list = a.string("tools") else {
            if a.string("max-tool-calls") != nil || a.has("require-tool-call") { throw CLIError.missingOption("--tools") }
            return nil
        }
        let builtIns: [Tool] = [.calculate(), .currentTime()]
        var chosen: [Tool] = []
        for name in list.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !name.isEmpty {
            if name == "all" {
                chosen = builtIns
                continue
            }
            guard let tool = builtIns.first(where: { $0.name == name }) else {
                throw CLIError.invalidValue(option: "--tools", value: name, expected: builtIns.map(\.name).joined(separator: ", ") + " or all")
            }
            if !chosen.contains(where: { $0.name == name }) { chosen.append(tool) }
        }
        guard !chosen.isEmpty else { throw CLIError.invalidValue(option: "--tools", value: list, expected: "tool names or all") }
        let maxCalls = try a.int("max-tool-calls") ?? 4
        guard maxCalls >= 0 else { throw CLIError.invalidValue(option: "--max-tool-calls", value: String(maxCalls), expected: "0 or more") }
        var loop = ToolCallLoop(registry: ToolRegistry(chosen), maxCalls: maxCalls)
        // Each user turn's first reply must be a call (for models that rarely decide to call).
        loop.requireFirstCall = a.has("require-tool-call")
        return loop
    }

    static func runWithTools(_ a: Arguments, runtime: RuntimeOptions, options: GenerationOptions, loop: ToolCallLoop) async throws {
        let json = a.has("json")
        let model = try runtime.load()
        let responder = try SessionResponder(session: runtime.session(model), options: options)
        let system = a.string("system").map { ChatMessage(role: .system, content: $0) }
        // The conversation without the tools' prompt, which the loop adds to every turn in the
        // same words, so the session's cache still reuses all earlier turns.
        var history: [ChatMessage] = system.map { [$0] } ?? []
        let interactive = isatty(STDIN_FILENO) != 0
        if interactive {
            let names = loop.registry.tools.map(\.name).joined(separator: ", ")
            print("Chatting with \(URL(fileURLWithPath: runtime.modelPath).lastPathComponent), tools: \(names). /reset clears, /exit or Ctrl-D quits.")
        }
        while let input = nextTurn(interactive: interactive) {
            if input == "/reset" {
                history = system.map { [$0] } ?? []
                responder.session.reset()
                continue
            }
            let printer = TurnPrinter(quiet: json)
            let outcome: ToolCallLoop.Outcome
            do {
                outcome = try await loop.run(messages: history + [ChatMessage(role: .user, content: input)], responder: responder) {
                    printer.show($0)
                }
            } catch EngineError.contextOverflow(let tokens, let ctx) {
                print("\n[conversation is \(tokens) tokens, over the context of \(ctx); /reset to start over]")
                continue
            }
            history = Array(outcome.messages.dropFirst())
            if let system { history.insert(system, at: 0) }
            if json { try printJSON(turnJSON(outcome)) } else { printer.endTurn(outcome) }
        }
    }

    static func turnJSON(_ outcome: ToolCallLoop.Outcome) -> [String: Any] {
        let calls: [[String: Any]] = outcome.calls.map { record in
            var entry: [String: Any] = ["result": record.result, "is_error": record.isError]
            if let call = record.call {
                entry["name"] = call.name
                entry["arguments"] = (try? JSONSerialization.jsonObject(with: Data(call.arguments.serialized.utf8))) ?? [:]
            }
            return entry
        }
        return ["text": outcome.answer, "tool_calls": calls, "reached_call_limit": outcome.reachedCallLimit,
                "metrics": outcome.turns.map { $0?.json ?? [:] }]
    }
}

/// Writes one turn to the terminal: answer text as it streams, each call and result on a line
/// of its own.
private final class TurnPrinter: Sendable {
    let quiet: Bool
    /// Whether the cursor is at the start of a line (so a call's line starts cleanly).
    private let atLineStart = Mutex(true)

    init(quiet: Bool) { self.quiet = quiet }

    func show(_ event: ToolCallLoop.Event) {
        guard !quiet else { return }
        switch event {
        case .text(let text):
            guard !text.isEmpty else { return }
            writeOut(text)
            atLineStart.withLock { $0 = text.hasSuffix("\n") }
        case .call(let call):
            newLine()
            writeOut("[tool call] \(call.map { "\($0.name) \($0.arguments.serialized)" } ?? "(unparsable call)")\n")
        case .result(let record):
            writeOut("[tool \(record.isError ? "error" : "result")] \(record.result)\n")
            atLineStart.withLock { $0 = true }
        }
    }

    func endTurn(_ outcome: ToolCallLoop.Outcome) {
        newLine()
        if outcome.reachedCallLimit { writeOut("[tool-call limit reached]\n") }
    }

    private func newLine() {
        let needed = atLineStart.withLock { was in
            defer { was = true }
            return !was
        }
        if needed { writeOut("\n") }
    }
}
