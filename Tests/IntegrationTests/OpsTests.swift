import Foundation
import OnDevice
import Testing
import TestSupport

/// The public text ops on real models: each op works, long inputs follow their policy, chat
/// reuses its cached prefix, and every stream stops promptly when its consumer cancels.
@Suite(.serialized) struct OpsTests {
    static func instance(_ file: String = TestModels.smolLM2, context: Int? = nil) throws -> OnDeviceAI {
        var c = OnDeviceAI.Configuration()
        _ = try #require(TestModels.path(file), "\(file) not installed: run scripts/setup.sh")
        c.textModel = file == TestModels.gemma3 ? "gemma3-270m-q4_k_m"
            : file == TestModels.qwen25 ? "qwen2.5-coder-0.5b-instruct-q4_k_m" : "smollm2-135m-instruct-q4_1"
        c.contextLength = context
        c.threads = 2
        return OnDeviceAI(configuration: c)
    }

    static var greedy: TextOptions {
        var o = TextOptions.greedy
        o.maxTokens = 48
        return o
    }

    @Test func `every op answers on SmolLM2`() async throws {
        let ai = try Self.instance()
        let g = try await ai.generate("Name one planet of the solar system.", options: Self.greedy)
        let c = try await ai.chat([.system("You are terse."), .user("What is 2 + 2?")], options: Self.greedy)
        let s = try await ai.summarize("The meeting moved from Monday to Thursday because the projector was broken. Everyone agreed to bring their own laptops.", options: Self.greedy)
        let t = try await ai.translate("Good morning, my friend.", to: "Spanish", options: Self.greedy)
        let p = try await ai.proofread("She dont like apples, but she like pears.", options: Self.greedy)
        for r in [g, c, s, t, p] {
            #expect(!r.text.isEmpty)
            #expect(r.metrics.completionTokens > 0 && r.metrics.promptTokens > 0)
            #expect(r.metrics.timeToFirstToken > 0)
            print("[ops] \(r.text.prefix(100).replacingOccurrences(of: "\n", with: " ")) (\(r.metrics.finishReason))")
        }
    }

    /// With no text model chosen each op runs on its measured default (`Benchmarks eval`).
    @Test func `with no text model chosen, translate and tool chats run on Qwen 2.5 and the rest on SmolLM2`() async throws {
        _ = try #require(TestModels.path(TestModels.qwen25), "Qwen 2.5 not installed: run scripts/setup.sh all")
        _ = try #require(TestModels.path(TestModels.smolLM2), "SmolLM2 not installed: run scripts/setup.sh")
        var c = OnDeviceAI.Configuration()
        c.threads = 2
        let ai = OnDeviceAI(configuration: c)
        // Qwen's vocabulary has 151,936 entries and `<|im_start|>` is 151644; SmolLM2's has 49,152.
        let t = try await ai.translate("Good morning, my friend.", to: "Spanish", options: Self.greedy)
        #expect(t.promptTokenIDs.contains(151_644), "\(t.promptTokenIDs.prefix(8))")
        let s = try await ai.summarize("The meeting moved from Monday to Thursday because the projector was broken.", options: Self.greedy)
        #expect(!s.promptTokenIDs.isEmpty && s.promptTokenIDs.allSatisfy { $0 < 49_152 })
        #expect(try await ai.capability(.translate).model == "qwen2.5-coder-0.5b-instruct-q4_k_m")
        #expect(try await ai.capability(.summarize).model == "smollm2-135m-instruct-q4_1")
        var toolOptions = ToolOptions()
        toolOptions.maxToolCalls = 1
        let r = try await ai.chat([.user("What is 81 times 19?")], tools: Tool.builtIns, options: Self.greedy, toolOptions: toolOptions)
        #expect(r.toolCalls.first?.name == "calculate" && r.toolCalls.first?.result == "1539", "\(r.toolCalls)")
        print("[ops default] translate: \(t.text) | summarize: \(s.text)")
    }

    @Test func `the non-chat paths run unchanged on Gemma 3, and chat says it needs a template`() async throws {
        let ai = try Self.instance(TestModels.gemma3)
        let g = try await ai.generate("The three primary colours are", options: Self.greedy)
        let s = try await ai.summarize("The library will close early on Friday for staff training. Books can be returned through the slot by the door.", options: Self.greedy)
        let p = try await ai.proofread("The cat are sleeping on the sofa.", options: Self.greedy)
        for r in [g, s, p] { #expect(r.metrics.completionTokens > 0) }
        await #expect(throws: OnDeviceError.self) { _ = try await ai.chat([.user("hi")], options: Self.greedy) }
    }

    @Test func `summaries of text longer than the context map and reduce with progress`() async throws {
        let ai = try Self.instance(context: 512)
        let paragraph = "The town council met on Tuesday to discuss the new park. Residents asked for more trees, a playground and benches near the pond. The council agreed to publish a plan by spring and to hold a public vote in the summer. "
        let text = (0..<8).map { _ in paragraph }.joined(separator: "\n\n")
        var progress: [OpProgress] = []
        var result: TextResult?
        var options = Self.greedy
        options.maxTokens = 96
        for try await event in ai.summarizeStream(text, options: options) {
            if case .progress(let p) = event { progress.append(p) }
            if case .finished(let r) = event { result = r }
        }
        let r = try #require(result)
        #expect(r.metrics.modelCalls > 1)
        #expect(!progress.isEmpty && progress.last?.completedSteps == progress.last?.totalSteps)
        #expect(!r.text.isEmpty)
    }

    @Test func `long inputs are refused by default and shortened only when asked`() async throws {
        let ai = try Self.instance(context: 128)
        let long = String(repeating: "This sentence is part of a very long input. ", count: 60)
        await #expect(throws: OnDeviceError.self) { _ = try await ai.translate(long, to: "French", options: Self.greedy) }
        var keep = Self.greedy
        keep.overflow = .keepEnd
        keep.maxTokens = 8
        let r = try await ai.translate(long, to: "French", options: keep)
        #expect(r.metrics.promptTokens <= 128)
    }

    @Test func `chat reuses the cached prefix of earlier turns`() async throws {
        let ai = try Self.instance()
        var messages: [Message] = [.user("Give me a short name for a cat.")]
        let first = try await ai.chat(messages, options: Self.greedy)
        messages += [.assistant(first.text), .user("And one for a dog?")]
        let second = try await ai.chat(messages, options: Self.greedy)
        #expect(second.metrics.cachedPromptTokens >= first.metrics.promptTokens)
        print("[ops] chat turn 1: \(first.metrics.promptTokens) prompt tokens, first token \(first.metrics.timeToFirstToken)s; turn 2: \(second.metrics.cachedPromptTokens)/\(second.metrics.promptTokens) cached, first token \(second.metrics.timeToFirstToken)s")
    }

    @Test(arguments: ["generate", "chat", "summarize", "translate", "proofread"])
    func `cancelling a stream stops decoding and returns the session`(_ op: String) async throws {
        let ai = try Self.instance(context: 8192)
        var o = TextOptions.greedy
        o.maxTokens = 4000
        o.ignoreEndOfGeneration = true  // without cancellation every op would decode 4000 tokens
        let text = "Write a long story about a lighthouse keeper and the storm that changed his life."
        let stream: AsyncThrowingStream<TextEvent, Error> = switch op {
        case "generate": ai.generateStream(text, options: o)
        case "chat": ai.chatStream([.user(text)], options: o)
        case "summarize": ai.summarizeStream(text + " " + text, options: o)
        case "translate": ai.translateStream(text, to: "German", options: o)
        default: ai.proofreadStream(text, options: o)
        }
        let consumer = Task {
            var partials = 0
            for try await event in stream {
                if case .partial = event {
                    partials += 1
                    if partials == 2 { withUnsafeCurrentTask { $0?.cancel() } }
                }
            }
            return partials
        }
        let partials = try await consumer.value
        #expect(partials >= 2)
        // The producer notices within one token and releases its lease.
        var waited = 0
        while try await ai.activeLeases() > 0 && waited < 200 {
            try await Task.sleep(for: .milliseconds(50))
            waited += 1
        }
        #expect(try await ai.activeLeases() == 0)
        // The pooled session's cache holds the prompt and what was decoded: fewer than the
        // 4000 tokens an uncancelled op decodes, so decoding stopped. How many it decoded depends
        // on when the cancelling consumer gets a thread: while other suites hold the test
        // process's cooperative pool that has taken seconds (1269 tokens once at 2000 and a
        // bound of 1000), so the bound is the whole run, not a count of tokens.
        let cached = try await ai.pooledCachedTokens()
        #expect(!cached.isEmpty && cached.allSatisfy { $0 < o.maxTokens }, "\(cached)")
        print("[ops] \(op) cancelled after 2 partials: \(cached) tokens in the pooled cache")
    }
}
