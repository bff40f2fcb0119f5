import OnDevice
import Testing
import TestSupport

/// `TextModel.session`: a conversation that keeps its place. Each turn after the first reads
/// the earlier turns from the session's own KV cache, the history grows by the user's text and
/// the reply, and `reset` starts over.
@Suite(.serialized) struct ChatSessionTests {
    @Test func `each turn reads the conversation so far from the session's cache`() async throws {
        let ai = try OpsTests.instance()
        var options = OpsTests.greedy
        options.maxTokens = 16
        let chat = ai.textModel.session(system: "You are brief.", options: options)
        let first = try await chat.respond(to: "Name a large river.")
        #expect(chat.messages.map(\.role) == [.system, .user, .assistant])
        #expect(chat.messages.last?.content == first.text)
        let second = try await chat.respond(to: "Which sea does it flow into?")
        #expect(chat.messages.count == 5 && chat.messages[3] == .user("Which sea does it flow into?"))
        // The first turn's prompt and reply are not evaluated again.
        #expect(second.metrics.cachedPromptTokens >= first.promptTokenIDs.count, "\(second.metrics)")
        #expect(second.promptTokenIDs.starts(with: first.promptTokenIDs))
        chat.reset()
        #expect(chat.messages.map(\.role) == [.system])
        #expect(try await ai.activeLeases() == 0)
    }
}
