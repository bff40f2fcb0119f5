import CLISupport
import Foundation
import OnDevice
import Platform

/// `ondevice chat --tools …`: each user turn is a chat with tools through the public API. On a
/// terminal the answer streams and every call and result appears on its own line as it happens;
/// `--json` prints one JSON object per turn instead (answer, calls with their results, figures
/// of each model call).
extension ChatCommand {
    /// The tools of `--tools` (names, comma-separated, or `all`) and the loop's options; nil
    /// without the option.
    static func toolChoice(_ a: Arguments) throws -> (tools: [Tool], options: ToolOptions)? {
        guard let list = a.string("tools") else {
            if a.string("max-tool-calls") != nil || a.has("require-tool-call") { throw CLIError.missingOption("--tools") }
            return nil
        }
        var chosen: [Tool] = []
        for name in list.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !name.isEmpty {
            if name == "all" {
                chosen = Tool.builtIns
                continue
            }
            guard let tool = Tool.builtIn(named: name) else {
                throw CLIError.invalidValue(option: "--tools", value: name, expected: Tool.builtIns.map(\.name).joined(separator: ", ") + " or all")
            }
            if !chosen.contains(where: { $0.name == name }) { chosen.append(tool) }
        }
        guard !chosen.isEmpty else { throw CLIError.invalidValue(option: "--tools", value: list, expected: "tool names or all") }
        var options = ToolOptions()
        options.maxToolCalls = try a.int("max-tool-calls") ?? options.maxToolCalls
        guard options.maxToolCalls >= 0 else {
            throw CLIError.invalidValue(option: "--max-tool-calls", value: String(options.maxToolCalls), expected: "0 or more")
        }
        // Each user turn's first reply must be a call (for models that rarely decide to call).
        options.requireToolCall = a.has("require-tool-call")
        return (chosen, options)
    }

    static func runWithTools(_ a: Arguments, model: TextModel, options: TextOptions, tools: [Tool], toolOptions: ToolOptions) async throws {
        let json = a.has("json")
        // The conversation as the loop returns it; passing it back keeps the prompt's prefix (and
        // so the session's cache) the same from turn to turn.
        var history: [Message] = a.string("system").map { [.system($0)] } ?? []
        let interactive = isatty(STDIN_FILENO) != 0
        if interactive {
            print("Chatting with \(model.id), tools: \(tools.map(\.name).joined(separator: ", ")). /reset clears, /exit or Ctrl-D quits.")
        }
        while let input = nextTurn(interactive: interactive) {
            if input == "/reset" {
                history = a.string("system").map { [.system($0)] } ?? []
                continue
            }
            let printer = TurnPrinter(quiet: json)
            var result: ToolChatResult?
            do {
                for try await event in model.chatStream(history + [.user(input)], tools: tools, options: options, toolOptions: toolOptions) {
                    switch event {
                    case .partial(let text): printer.text(text)
                    case .toolCall(let name, let arguments): printer.call(name: name, arguments: arguments)
                    case .toolResult(let invocation): printer.result(invocation)
                    case .finished(let r): result = r
                    }
                }
            } catch let error as OnDeviceError where error.code == .inputTooLong {
                print("\n[conversation is \(error.tokens ?? 0) tokens, over the \(error.limit ?? 0) this context allows; /reset to start over]")
                continue
            }
            guard let result else { continue }
            history = result.transcript
            if json { try printJSON(turnJSON(result)) } else { printer.endTurn(result) }
        }
    }

    static func turnJSON(_ result: ToolChatResult) -> [String: Any] {
        let calls: [[String: Any]] = result.toolCalls.map { call in
            var entry: [String: Any] = ["result": call.result, "is_error": call.error != nil]
            if let name = call.name { entry["name"] = name }
            if let arguments = call.arguments {
                entry["arguments"] = (try? JSONSerialization.jsonObject(with: Data(arguments.json.utf8))) ?? [:]
            }
            return entry
        }
        return ["text": result.text, "tool_calls": calls, "reached_call_limit": result.reachedCallLimit,
                "metrics": result.callMetrics.map(\.json)]
    }
}

/// Writes one turn to the terminal: answer text as it streams, each call and result on a line
/// of its own.
private final class TurnPrinter: Sendable {
    let quiet: Bool
    /// Whether the cursor is at the start of a line (so a call's line starts cleanly).
    private let atLineStart = Locked(true)

    init(quiet: Bool) { self.quiet = quiet }

    func text(_ text: String) {
        guard !quiet, !text.isEmpty else { return }
        writeOut(text)
        atLineStart.withLock { $0 = text.hasSuffix("\n") }
    }

    func call(name: String?, arguments: ToolArguments?) {
        guard !quiet else { return }
        newLine()
        writeOut("[tool call] \(name.map { "\($0) \(arguments?.json ?? "{}")" } ?? "(unparsable call)")\n")
    }

    func result(_ invocation: ToolInvocation) {
        guard !quiet else { return }
        writeOut("[tool \(invocation.error != nil ? "error" : "result")] \(invocation.result)\n")
        atLineStart.withLock { $0 = true }
    }

    func endTurn(_ result: ToolChatResult) {
        newLine()
        if result.reachedCallLimit { writeOut("[tool-call limit reached]\n") }
    }

    private func newLine() {
        let needed = atLineStart.withLock { was in
            defer { was = true }
            return !was
        }
        if needed { writeOut("\n") }
    }
}
