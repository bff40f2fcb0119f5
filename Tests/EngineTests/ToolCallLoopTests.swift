import Foundation
import StructuredOutput
import Platform
import Testing
import TextGeneration
import Tokenizers
import Tools

/// A scripted model: returns the given replies in order, and records what each turn saw. It
/// tests the loop, not any model.
final class ScriptedResponder: AssistantResponding, Sendable {
    struct Turn: Sendable {
        var messages: [ChatMessage]
        var mayCall: Bool
    }
    private let state: Locked<(replies: [String], turns: [Turn])>

    init(_ replies: [String]) { state = Locked((replies, [])) }

    var turns: [Turn] { state.withLock { $0.turns } }

    func respond(to messages: [ChatMessage], tools: ToolChoice, onText: @escaping @Sendable (String) -> Void) async throws -> AssistantReply {
        let mayCall: Bool
        switch tools {
        case .none: mayCall = false
        case .auto, .required: mayCall = true
        }
        let reply = state.withLock { s in
            s.turns.append(Turn(messages: messages, mayCall: mayCall))
            return s.replies.isEmpty ? "" : s.replies.removeFirst()
        }
        onText(reply)
        return AssistantReply(text: reply)
    }
}

@Suite struct ToolCallLoopTests {
    static func call(_ name: String, _ arguments: String) -> String {
        "<tool_call>\n{\"name\": \"\(name)\", \"arguments\": \(arguments)}\n</tool_call>"
    }

    static let fixedDate = Date(timeIntervalSince1970: 1_767_323_045)  // 2026-01-02T03:04:05Z, a Friday

    static func registry() throws -> ToolRegistry {
        let failing = try Tool(name: "flaky", description: "Always fails.",
                               parameters: JSONSchema(json: #"{"type":"object","properties":{}}"#)) { _ in
            throw EngineError.toolFailed(name: "flaky", reason: "service unavailable")
        }
        return ToolRegistry([.calculate(), .currentTime(now: { fixedDate }, timeZone: TimeZone(identifier: "Asia/Tokyo")!), failing])
    }

    @Test func `one call is executed and its result fed back before the answer`() async throws {
        let model = ScriptedResponder([Self.call("calculate", #"{"expression": "6 * 7"}"#), "It is 42."])
        let loop = ToolCallLoop(registry: try Self.registry())
        let out = try await loop.run(messages: [ChatMessage(role: .user, content: "What is 6 times 7?")], responder: model)
        #expect(out.answer == "It is 42.")
        #expect(out.calls == [ToolCallRecord(call: ToolCall(name: "calculate", arguments: .object([.init("expression", .string("6 * 7"))])),
                                             result: "42", isError: false)])
        #expect(!out.reachedCallLimit)
        let turns = model.turns
        #expect(turns.count == 2)
        #expect(turns[0].messages.first?.role == .system)
        #expect(turns[0].messages.first?.content.contains(#""name":"calculate""#) == true)
        let last = try #require(turns[1].messages.last)
        #expect(last == ChatMessage(role: .tool, content: "<tool_response>\n{\"name\":\"calculate\",\"content\":\"42\"}\n</tool_response>",
                                    name: "calculate"))
        #expect(turns[1].messages[turns[1].messages.count - 2].content
            == "<tool_call>\n{\"name\":\"calculate\",\"arguments\":{\"expression\":\"6 * 7\"}}\n</tool_call>")
        #expect(out.messages.map(\.role) == [.system, .user, .assistant, .tool, .assistant])
    }

    @Test func `chained calls run in order, each seeing the previous result`() async throws {
        let model = ScriptedResponder([
            "Let me check the time. " + Self.call("current_time", "{}"),
            Self.call("calculate", #"{"expression": "24 - 12"}"#),
            "It is 12:04 on Friday; 12 hours remain.",
        ])
        let out = try await ToolCallLoop(registry: try Self.registry()).run(
            messages: [ChatMessage(role: .system, content: "Be brief."), ChatMessage(role: .user, content: "How many hours are left today?")],
            responder: model)
        #expect(out.calls.map { $0.call?.name } == ["current_time", "calculate"])
        #expect(out.calls[0].result == #"{"time":"2026-01-02T12:04:05+09:00","weekday":"Friday","timezone":"Asia/Tokyo"}"#)
        #expect(out.calls[1].result == "12")
        #expect(out.answer == "It is 12:04 on Friday; 12 hours remain.")
        let turns = model.turns
        #expect(turns[0].messages[0].content.hasPrefix("Be brief.\n\nYou can call functions"))
        #expect(turns[1].messages.last?.content.contains("2026-01-02T12:04:05+09:00") == true)
        #expect(turns[1].messages[turns[1].messages.count - 2].content.hasPrefix("Let me check the time.\n<tool_call>"))
        #expect(turns[2].messages.last?.content.contains(#""content":"12""#) == true)
    }

    @Test func `the call cap stops executing and the last turn may not call`() async throws {
        let sums = (1...3).map { Self.call("calculate", "{\"expression\": \"\($0) + \($0)\"}") }
        let model = ScriptedResponder([sums[0], sums[1], "Still thinking. " + sums[2]])
        var loop = ToolCallLoop(registry: try Self.registry(), maxCalls: 2)
        loop.requireFirstCall = true
        let out = try await loop.run(messages: [ChatMessage(role: .user, content: "Add forever.")], responder: model)
        #expect(out.calls.map(\.result) == ["2", "4"])
        #expect(out.reachedCallLimit)
        #expect(out.answer == "Still thinking.")
        #expect(model.turns.map(\.mayCall) == [true, true, false])
    }

    @Test func `a repeated call is not run again: the model answers from the result it has`() async throws {
        let again = Self.call("calculate", #"{"expression": "1 + 1"}"#)
        let model = ScriptedResponder([again, again, "It is 2."])
        let out = try await ToolCallLoop(registry: try Self.registry(), maxCalls: 4).run(
            messages: [ChatMessage(role: .user, content: "1 + 1?")], responder: model)
        #expect(out.calls.map(\.result) == ["2"])
        #expect(out.answer == "It is 2.")
        #expect(!out.reachedCallLimit)
        // The repeat was dropped: the answering turn saw one call and its result, and could not call.
        #expect(model.turns.map(\.mayCall) == [true, true, false])
        #expect(model.turns[2].messages.filter { $0.role == .tool }.count == 1)
        #expect(out.messages.filter { $0.role == .tool }.count == 1)
    }

    @Test func `a call that returns the previous result again ends calling`() async throws {
        let first = Self.call("calculate", #"{"expression": "6 * 7"}"#)
        let echo = Self.call("calculate", #"{"expression": "42"}"#)
        let model = ScriptedResponder([first, echo, "42."])
        let out = try await ToolCallLoop(registry: try Self.registry(), maxCalls: 4).run(
            messages: [ChatMessage(role: .user, content: "6 times 7?")], responder: model)
        #expect(out.calls.map(\.result) == ["42", "42"])
        #expect(out.answer == "42.")
        #expect(model.turns.map(\.mayCall) == [true, true, false])
        // A different result keeps calls open.
        let other = ScriptedResponder([first, Self.call("calculate", #"{"expression": "42 + 1"}"#), "43."])
        _ = try await ToolCallLoop(registry: try Self.registry(), maxCalls: 4).run(
            messages: [ChatMessage(role: .user, content: "6 times 7, plus 1?")], responder: other)
        #expect(other.turns.map(\.mayCall) == [true, true, true])
    }

    @Test func `several calls in one reply count against the cap`() async throws {
        let two = Self.call("calculate", #"{"expression": "1"}"#) + Self.call("calculate", #"{"expression": "2"}"#)
        let model = ScriptedResponder([two + Self.call("calculate", #"{"expression": "3"}"#), "Done."])
        let out = try await ToolCallLoop(registry: try Self.registry(), maxCalls: 2).run(
            messages: [ChatMessage(role: .user, content: "x")], responder: model)
        #expect(out.calls.map(\.result) == ["1", "2"])
        #expect(out.answer == "Done.")
    }

    @Test func `an unknown tool, bad arguments, a failing tool and broken JSON are reported to the model`() async throws {
        let model = ScriptedResponder([
            Self.call("weather", #"{"city": "Oslo"}"#),
            Self.call("calculate", #"{"expr": "1"}"#),
            Self.call("calculate", #"{"expression": "1 / 0"}"#),
            Self.call("flaky", "{}"),
            "<tool_call>{\"name\": \"calculate\", \"arguments\": {\"expression\": </tool_call>",
            "Sorry, I could not work it out.",
        ])
        let out = try await ToolCallLoop(registry: try Self.registry(), maxCalls: 6).run(
            messages: [ChatMessage(role: .user, content: "?")], responder: model)
        #expect(out.calls.allSatisfy { $0.isError })
        #expect(out.calls[0].result == "there is no tool named weather; the tools are: calculate, current_time, flaky")
        #expect(out.calls[1].result.hasPrefix("invalid arguments: JSON does not match the schema at #: member expr is not in the schema"))
        #expect(out.calls[2].result == "calculation error at character 2: division by zero")
        #expect(out.calls[3].result == "flaky: service unavailable")
        #expect(out.calls[4].call == nil && out.calls[4].result.hasPrefix("the text after <tool_call> is not a JSON object"))
        #expect(out.answer == "Sorry, I could not work it out.")
        let responses = model.turns[5].messages.filter { $0.role == .tool }.map(\.content)
        #expect(responses.count == 5 && responses.allSatisfy { $0.contains(#""error":"#) })
    }

    @Test func `a reply without a call ends the loop at once`() async throws {
        let model = ScriptedResponder(["Paris."])
        let out = try await ToolCallLoop(registry: try Self.registry()).run(
            messages: [ChatMessage(role: .user, content: "Capital of France?")], responder: model)
        #expect(out.answer == "Paris." && out.calls.isEmpty && model.turns.count == 1)
    }

    @Test func `ChatML renders tool results in a tool turn`() throws {
        let template = ChatTemplate(family: .chatML(defaultSystemPrompt: nil))
        let text = try template.render(messages: [
            ChatMessage(role: .user, content: "q"),
            ChatMessage(role: .tool, content: ToolRegistry.response(name: "calculate", result: "4", isError: false)),
        ], addGenerationPrompt: true)
        #expect(text.contains("<|im_start|>tool\n<tool_response>\n{\"name\":\"calculate\",\"content\":\"4\"}\n</tool_response><|im_end|>\n"))
    }

    @Test func `the built-in tools' schemas are what their documents say`() throws {
        for tool in try Self.registry().tools {
            #expect(try JSONSchema(document: tool.parameters.document) == tool.parameters, "\(tool.name)")
        }
    }
}
