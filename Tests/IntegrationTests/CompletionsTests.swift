import Foundation
import OnDevice
import Platform
import Testing
import TestSupport

/// `TextModel.completions`, the public call the server's text endpoints are: tool calls
/// returned and never run, JSON held to its schema, several replies with their own seeds, the
/// admission answer, and a stop that gives everything back before the stream ends.
@Suite(.serialized) struct CompletionsTests {
    static func events(_ stream: AsyncThrowingStream<CompletionEvent, Error>) async throws -> [CompletionEvent] {
        var out: [CompletionEvent] = []
        for try await event in stream { out.append(event) }
        return out
    }

    static func replies(_ events: [CompletionEvent]) -> [Completion] {
        events.compactMap { if case .finished(let c) = $0 { c } else { nil } }
    }

    @Test func `a tool call comes back to the caller and its handler never runs`() async throws {
        let ai = try OpsTests.instance(TestModels.qwen25)
        let ran = Locked(0)
        let weather = try Tool(name: "weather", description: "Current weather in a city.",
                               parameters: #"{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}"#) { _ in
            ran.withLock { $0 += 1 }
            return "sunny"
        }
        var options = TextOptions.greedy
        options.maxTokens = 96
        var request = CompletionRequest(.chat([.user("What is the weather in Oslo right now?")]),
                                        output: .tools([weather, .calculate], use: .only("weather")), options: options)
        request.maxCallsPerReply = 1
        let events = try await Self.events(ai.textModel.completions(request))
        guard case .admitted(let limit)? = events.first else { Issue.record("first event \(String(describing: events.first))"); return }
        #expect(limit >= 1)
        #expect(events.dropFirst().first == .started(choice: 0))
        let reply = try #require(Self.replies(events).first)
        #expect(reply.toolCalls.count == 1 && reply.toolCalls.first?.name == "weather", "\(reply)")
        let arguments = try #require(reply.toolCalls.first?.arguments.data(using: .utf8))
        let object = try #require(try JSONSerialization.jsonObject(with: arguments) as? [String: Any])
        #expect((object["city"] as? String)?.contains("Oslo") == true, "\(object)")
        #expect(ran.withLock { $0 } == 0)
        #expect(reply.finishReason == .stop && !reply.result.promptTokenIDs.isEmpty)
        #expect(try await ai.activeLeases() == 0)
    }

    @Test func `JSON output follows its schema and choices draw their own seeds, reproducibly`() async throws {
        let ai = try OpsTests.instance()
        let schema = #"{"type":"object","properties":{"answer":{"type":"string","enum":["yes","no"]},"sure":{"type":"boolean"}},"required":["answer","sure"]}"#
        var options = TextOptions()
        options.temperature = 0.9
        options.seed = 7
        options.maxTokens = 40
        options.logprobs = 2
        var request = CompletionRequest(.user("Is water wet?", system: nil), output: .json(schema: schema), options: options)
        request.choices = 3
        let first = try await Self.events(ai.textModel.completions(request))
        let replies = Self.replies(first)
        #expect(replies.map(\.choice) == [0, 1, 2])
        for reply in replies {
            let data = try #require(reply.text.data(using: .utf8))
            let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any], "\(reply.text)")
            #expect(["yes", "no"].contains(object["answer"] as? String) && object["sure"] is Bool, "\(reply.text)")
            #expect(reply.result.promptTokenIDs == replies[0].result.promptTokenIDs)
            #expect(reply.result.logprobs?.isEmpty == false)
        }
        // The streamed pieces are the replies' text, their tokens with them.
        let streamed = first.compactMap { if case .text(let t, _) = $0 { t } else { nil } }.joined()
        #expect(streamed == replies.map(\.text).joined())
        let tokens = first.flatMap { event -> [GeneratedToken] in
            if case .text(_, let t) = event { return t }
            return []
        }
        #expect(tokens == replies.flatMap { $0.result.logprobs ?? [] })
        // Seeded: the same request gives the same replies.
        let again = Self.replies(try await Self.events(ai.textModel.completions(request)))
        #expect(again.map(\.result.tokenIDs) == replies.map(\.result.tokenIDs))
        #expect(Set(replies.map(\.result.tokenIDs)).count > 1, "three sampled replies all equal: \(replies.map(\.text))")
        #expect(try await ai.activeLeases() == 0)
    }

    @Test func `a stop asked for while reading ends the stream after the session and lease are back`() async throws {
        let ai = try OpsTests.instance()
        var options = OpsTests.greedy
        options.maxTokens = 400
        options.ignoreEndOfGeneration = true
        var request = CompletionRequest(.user("Tell a long story about the sea.", system: nil), options: options)
        request.choices = 2
        // Polled before every token: the stop comes after ten, however far behind the reader is.
        let polls = Locked(0)
        var pieces = 0, finished = 0
        for try await event in ai.textModel.completions(request, cancelWhen: { polls.withLock { $0 += 1; return $0 > 10 } }) {
            switch event {
            case .text: pieces += 1
            case .finished: finished += 1
            default: break
            }
        }
        #expect(finished == 0 && pieces >= 1 && pieces <= 10, "\(pieces) pieces, \(finished) replies")
        // The stream's end came after the session and the lease were given back.
        #expect(try await ai.activeLeases() == 0)
    }
}
