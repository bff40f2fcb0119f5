import Foundation
import StructuredOutput
import Platform
import Testing
import TextGeneration
import Tokenizers
import Tools

/// Tool calls through the real engine on a random-weight model: whatever it "wants", a call
/// must parse, name a registered tool and carry arguments valid for that tool.
@Suite struct ConstrainedToolCallTests {
    static func registry() throws -> ToolRegistry {
        let search = try Tool(name: "search", description: "Search the web.", parameters: JSONSchema(json: """
            {"type":"object","properties":{"query":{"type":"string","maxLength":30},"limit":{"type":"integer"}},"required":["query"]}
            """)) { args in "results for \(args["query"]?.string ?? "")" }
        return ToolRegistry([.calculate(), .currentTime(), search])
    }

    static func responder(seed: UInt64, maxTokens: Int) throws -> SessionResponder {
        let model = try ConstrainedDecodingTests.model(context: 4096)
        var o = ConstrainedDecodingTests.sampling(seed: seed)
        o.maxTokens = maxTokens
        return try SessionResponder(session: Session(model: model, threads: 1), options: o)
    }

    @Test func `a required call always parses and is valid for its tool`() async throws {
        let registry = try Self.registry()
        let loop = ToolCallLoop(registry: registry)
        // One session: the prompt is the same each time, so its KV cache is reused.
        let responder = try Self.responder(seed: 0, maxTokens: 60)
        for seed in 0..<20 {
            responder.options.sampling.seed = UInt64(seed)
            responder.options.maxTokens = [60, 150][seed % 2]
            let messages = loop.withToolPrompt([ChatMessage(role: .user, content: "What is 2+2?")])
            let reply = try await responder.respond(to: messages, tools: .required(registry)) { _ in }
            let (_, calls) = ToolCallParser.parse(reply.text)
            guard calls.count == 1, case .call(let call) = calls[0] else {
                Issue.record("seed \(seed): no valid call in \(reply.text)")
                continue
            }
            let tool = try #require(registry.tool(named: call.name))
            #expect(throws: Never.self, "seed \(seed): \(reply.text)") { try tool.parameters.validate(call.arguments) }
            #expect(reply.metrics?.finishReason == .grammarComplete)
        }
    }

    @Test func `a named tool constrains the call to it while every tool is described`() throws {
        let model = try ConstrainedDecodingTests.model(context: 4096)
        let registry = try ConstrainedToolCallTests.registry()
        let session = Session(model: model, threads: 1)
        for seed in 0..<6 {
            var options = ConstrainedDecodingTests.sampling(seed: UInt64(seed))
            options.maxTokens = 120
            var job = TextJob(.chat([ChatMessage(role: .user, content: "What time is it?")]), output: .toolCall(required: true),
                              tools: registry, options: options)
            let everyTool = try TextCore.plan(job, model: model, contextLength: session.contextLength)
            job.callableTool = "search"
            let plan = try TextCore.plan(job, model: model, contextLength: session.contextLength)
            #expect(plan.prompt == everyTool.prompt, "the prompt still lists every tool")
            let outcome = try TextCore.run(plan, on: session)
            guard outcome.calls.count == 1, case .call(let call) = outcome.calls[0] else {
                Issue.record("seed \(seed): no call in \(outcome.result.text)")
                continue
            }
            #expect(call.name == "search", "seed \(seed)")
        }
        var job = TextJob(.chat([ChatMessage(role: .user, content: "hi")]), output: .toolCall(required: true), tools: registry)
        job.callableTool = "missing"
        #expect(throws: EngineError.self) { try TextCore.plan(job, model: model, contextLength: 4096) }
    }

    @Test func `a reply makes up to its cap of calls, each valid, and one call when the cap is one`() throws {
        let model = try ConstrainedDecodingTests.model(context: 4096)
        let registry = try Self.registry()
        let session = Session(model: model, threads: 1)
        var counts: [Int] = []
        for seed in 0..<12 {
            var options = ConstrainedDecodingTests.sampling(seed: UInt64(seed))
            options.maxTokens = 400
            var job = TextJob(.chat([ChatMessage(role: .user, content: "Search for cats and dogs.")]), output: .toolCall(required: true),
                              tools: registry, options: options)
            job.maxCalls = 3
            let several = try TextCore.run(TextCore.plan(job, model: model, contextLength: session.contextLength), on: session)
            for parsed in several.calls {
                guard case .call(let call) = parsed else {
                    // Only a call cut by the token budget may fail to parse.
                    #expect(several.finishReason == .length, "seed \(seed): \(several.result.text)")
                    continue
                }
                let tool = try #require(registry.tool(named: call.name))
                #expect(throws: Never.self, "seed \(seed): \(several.result.text)") { try tool.parameters.validate(call.arguments) }
            }
            #expect((1...3).contains(several.calls.count), "seed \(seed): \(several.result.text)")
            #expect(several.content.isEmpty, "nothing but calls follows a call: \(several.result.text)")
            counts.append(several.calls.count)
            job.maxCalls = 1
            let one = try TextCore.run(TextCore.plan(job, model: model, contextLength: session.contextLength), on: session)
            #expect(one.calls.count == 1 && one.finishReason == .grammarComplete, "seed \(seed): \(one.result.text)")
        }
        print("[tools] calls per reply, cap 3, seeds 0-11: \(counts)")
        #expect(counts.contains { $0 > 1 }, "some seed opens a second call: \(counts)")
    }

    @Test func `the whole loop runs on the engine and ends within the cap`() async throws {
        for seed in 0..<4 {
            var loop = ToolCallLoop(registry: try Self.registry(), maxCalls: 2)
            loop.requireFirstCall = true
            let responder = try Self.responder(seed: UInt64(seed), maxTokens: 60)
            let out = try await loop.run(messages: [ChatMessage(role: .user, content: "Search for cats.")], responder: responder)
            #expect(!out.calls.isEmpty && out.calls.count <= 2)
            #expect(out.calls[0].call != nil, "the forced first call parsed")
            #expect(out.turns.count <= 3)
        }
    }

    @Test func `free text without the trigger is left alone`() async throws {
        let registry = try Self.registry()
        let responder = try Self.responder(seed: 5, maxTokens: 30)
        let messages = ToolCallLoop(registry: registry).withToolPrompt([ChatMessage(role: .user, content: "Hi")])
        let streamed = Streamed()
        let reply = try await responder.respond(to: messages, tools: .auto(registry)) { streamed.append($0) }
        if !reply.text.contains(ToolRegistry.callOpen) { #expect(streamed.text == reply.text) }
    }

    @Test func `cancelling a turn stops it`() async throws {
        let task = Task {
            let responder = try Self.responder(seed: 1, maxTokens: 100_000)
            return try await responder.respond(to: [ChatMessage(role: .user, content: "Talk.")], tools: .none) { _ in }
        }
        try await Task.sleep(for: .milliseconds(50))
        task.cancel()
        let result = await task.result
        if case .success(let reply) = result { #expect(reply.metrics?.finishReason != .length) }
    }
}

/// Collects streamed text across tasks.
final class Streamed: Sendable {
    private let box = Locked("")
    func append(_ s: String) { box.withLock { $0 += s } }
    var text: String { box.withLock { $0 } }
}
