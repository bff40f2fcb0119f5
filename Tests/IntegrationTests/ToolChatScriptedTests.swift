// Scoped imports: the Engine's own `Tool` would make the public `Tool` ambiguous here.
import protocol TextGeneration.AssistantResponding
import struct TextGeneration.AssistantReply
import enum TextGeneration.ToolChoice
import struct Tools.ToolRegistry
import Foundation
import OnDevice
import Platform
import Testing
import TestSupport
import Tokenizers

/// Assistant turns from a script, so the public tool layer (events, typed failures, the call
/// limit, the lease) is tested exactly; the lease and session are SmolLM2's, taken through the
/// runtime as in production.
final class ScriptedAssistant: AssistantResponding, Sendable {
    private let state: Locked<(replies: [String], seen: [[ChatMessage]])>

    init(_ replies: [String]) { state = Locked((replies, [])) }

    /// The conversation each turn was given.
    var seen: [[ChatMessage]] { state.withLock { $0.seen } }

    func respond(to messages: [ChatMessage], tools: ToolChoice, onText: @escaping @Sendable (String) -> Void) async throws -> AssistantReply {
        let reply = state.withLock { s in
            s.seen.append(messages)
            return s.replies.isEmpty ? "" : s.replies.removeFirst()
        }
        if !reply.contains(ToolRegistry.callOpen) { onText(reply) }
        return AssistantReply(text: reply)
    }

    static func call(_ name: String, _ arguments: String) -> String {
        "<tool_call>\n{\"name\": \"\(name)\", \"arguments\": \(arguments)}\n</tool_call>"
    }
}

@Suite(.serialized) struct ToolChatScriptedTests {
    static let fixedDate = Date(timeIntervalSince1970: 1_767_323_045)  // 2026-01-02T03:04:05Z, a Friday

    static func tools() throws -> [Tool] {
        let lookup = try Tool(name: "lookup_city", description: "Population of a city.",
                              parameters: #"{"type":"object","properties":{"city":{"type":"string"},"year":{"type":"integer"}},"required":["city"]}"#) { args in
            guard let city = args.string("city") else { throw OnDeviceError.invalidArgument("no city") }
            if city == "Atlantis" { throw OnDeviceError.invalidArgument("no such city: Atlantis") }
            return "\(city): 709000 in \(Int(args.number("year") ?? 2020))"
        }
        return [.calculate, .currentTime(now: { fixedDate }, timeZone: TimeZone(identifier: "Asia/Tokyo")!), lookup]
    }

    func run(_ ai: OnDeviceAI, _ script: ScriptedAssistant, tools: [Tool], toolOptions: ToolOptions = ToolOptions())
        async throws -> (events: [ToolChatEvent], result: ToolChatResult) {
        var events: [ToolChatEvent] = []
        for try await event in ai.toolChatStream([.user("Question?")], tools: tools, options: .greedy, toolOptions: toolOptions,
                                                  responder: { _ in script }) {
            events.append(event)
        }
        guard case .finished(let result)? = events.last else { throw OnDeviceError.cancelled }
        return (events, result)
    }

    @Test func `a call runs its tool and the stream shows the call, its result and the answer in order`() async throws {
        let ai = try OpsTests.instance()
        let script = ScriptedAssistant([ScriptedAssistant.call("lookup_city", #"{"city": "Lisbon", "year": 2021}"#), "About 709 thousand."])
        let (events, result) = try await run(ai, script, tools: try Self.tools())
        #expect(result.toolCalls.count == 1)
        #expect(result.toolCalls[0].name == "lookup_city" && result.toolCalls[0].result == "Lisbon: 709000 in 2021")
        #expect(result.toolCalls[0].arguments?.json == #"{"city":"Lisbon","year":2021}"#)
        #expect(result.toolCalls[0].error == nil)
        #expect(result.text == "About 709 thousand.")
        #expect(!result.reachedCallLimit)
        #expect(events.count == 4)
        #expect(events[0] == .toolCall(name: "lookup_city", arguments: result.toolCalls[0].arguments))
        #expect(events[1] == .toolResult(result.toolCalls[0]))
        #expect(events[2] == .partial("About 709 thousand."))
        #expect(result.transcript.map(\.role) == [.system, .user, .assistant, .tool, .assistant])
        #expect(result.transcript[0].content.contains(#""name":"lookup_city""#))
        #expect(result.transcript[3].content == "<tool_response>\n{\"name\":\"lookup_city\",\"content\":\"Lisbon: 709000 in 2021\"}\n</tool_response>")
        // What the model saw on its second turn is that transcript up to the answer.
        #expect(script.seen[1].map { Message(role: Role(rawValue: $0.role.rawValue)!, content: $0.content, toolName: $0.name) } == Array(result.transcript.dropLast()))
        #expect(try await ai.activeLeases() == 0)
    }

    @Test func `an unknown tool, bad arguments, broken JSON and a failing tool are typed and fed back`() async throws {
        let ai = try OpsTests.instance()
        let script = ScriptedAssistant([
            ScriptedAssistant.call("weather", #"{"city": "Oslo"}"#),
            ScriptedAssistant.call("lookup_city", #"{"town": "Oslo"}"#),
            "<tool_call>{\"name\": \"calculate\", \"arguments\": {\"expression\": </tool_call>",
            ScriptedAssistant.call("lookup_city", #"{"city": "Atlantis"}"#),
            ScriptedAssistant.call("calculate", #"{"expression": "2 ^ 10"}"#),
            "1024.",
        ])
        var options = ToolOptions()
        options.maxToolCalls = 8
        let (_, result) = try await run(ai, script, tools: try Self.tools(), toolOptions: options)
        let calls = result.toolCalls
        #expect(calls.count == 5)
        #expect(calls[0].error == .unknownTool(name: "weather", available: ["calculate", "current_time", "lookup_city"]))
        #expect(calls[1].error?.code == .invalidToolArguments, "\(String(describing: calls[1].error))")
        #expect(calls[1].error?.tool == "lookup_city" && calls[1].error?.reason?.contains("town") == true)
        #expect(calls[2].error?.code == .malformedToolCall, "\(String(describing: calls[2].error))")
        #expect(calls[2].name == nil && calls[2].arguments == nil)
        #expect(calls[3].error?.code == .toolFailed, "\(String(describing: calls[3].error))")
        #expect(calls[3].error?.tool == "lookup_city" && calls[3].error?.reason?.contains("Atlantis") == true)
        #expect(calls[4].error == nil && calls[4].result == "1024")
        #expect(result.text == "1024.")
        // Every failure went back to the model as an error result, and it carried on.
        let toolTurns = result.transcript.filter { $0.role == .tool }.map(\.content)
        #expect(toolTurns.count == 5)
        #expect(toolTurns.prefix(4).allSatisfy { $0.contains(#""error":"#) })
        #expect(toolTurns[4].contains(#""content":"1024""#))
        #expect(try await ai.activeLeases() == 0)
    }

    @Test func `the call limit ends calling, and fails the chat only when asked`() async throws {
        let ai = try OpsTests.instance()
        // Different sums each time: a call that repeats an earlier one would close calls itself.
        let sums = (1...3).map { ScriptedAssistant.call("calculate", "{\"expression\": \"\($0) + \($0)\"}") }
        var options = ToolOptions()
        options.maxToolCalls = 2
        let (_, result) = try await run(ai, ScriptedAssistant([sums[0], sums[1], "Still going. " + sums[2]]), tools: try Self.tools(), toolOptions: options)
        #expect(result.toolCalls.count == 2)
        #expect(result.reachedCallLimit)
        #expect(result.text == "Still going.")

        options.failAtCallLimit = true
        await #expect(throws: OnDeviceError.toolCallLimitReached(limit: 2)) {
            _ = try await run(ai, ScriptedAssistant(sums), tools: try Self.tools(), toolOptions: options)
        }
        // An answer within the limit is not an error, even with failAtCallLimit.
        let (_, fine) = try await run(ai, ScriptedAssistant([sums[0], "2."]), tools: try Self.tools(), toolOptions: options)
        #expect(fine.text == "2." && !fine.reachedCallLimit)
        #expect(try await ai.activeLeases() == 0)
    }

    @Test func `bad tool definitions and arguments are refused up front`() async throws {
        #expect(throws: OnDeviceError.self) {
            _ = try Tool(name: "x", description: "", parameters: #"{"type":"string"}"#) { _ in "" }
        }
        #expect(throws: OnDeviceError.self) {
            _ = try Tool(name: "has space", description: "", parameters: #"{"type":"object"}"#) { _ in "" }
        }
        #expect(throws: OnDeviceError.self) {
            _ = try Tool(name: "y", description: "", parameters: "{not json") { _ in "" }
        }
        #expect(Tool.builtIns.map(\.name) == ["calculate", "current_time"])
        #expect(Tool.builtIn(named: "calculate")?.parameters.contains("expression") == true)
        let ai = try OpsTests.instance()
        await #expect(throws: OnDeviceError.self) { _ = try await ai.chat([.user("x")], tools: [.calculate, .calculate]) }
        await #expect(throws: OnDeviceError.self) { _ = try await ai.chat([], tools: [.calculate]) }
    }

    @Test func `the built-in tools run through the public handler`() async throws {
        let ai = try OpsTests.instance()
        let script = ScriptedAssistant([
            ScriptedAssistant.call("current_time", "{}") + ScriptedAssistant.call("calculate", #"{"expression": "sqrt(1764)"}"#),
            "42, on a Friday.",
        ])
        let (_, result) = try await run(ai, script, tools: try Self.tools())
        #expect(result.toolCalls.map(\.result) == [#"{"time":"2026-01-02T12:04:05+09:00","weekday":"Friday","timezone":"Asia/Tokyo"}"#, "42"])
        #expect(result.toolCalls.allSatisfy { $0.error == nil })
    }
}
