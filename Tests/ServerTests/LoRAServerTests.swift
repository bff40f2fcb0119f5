import Foundation
import TestSupport
import Server
import Testing

/// The `lora` request field on a real model: the pirate adapter of ../shared/golden/lora over
/// SmolLM2-135M-Instruct, applied per request to one resident base, against llama.cpp's greedy
/// references; unknown, mismatched and badly scaled adapters as OpenAI-shaped errors.
@Suite(.serialized) struct LoRAServerTests {
    static let model = "smollm2-135m-instruct-q4_1"
    static var adapterPath: String { TestServer.golden + "/lora/smollm2-135m-instruct-pirate-lora-f16.gguf" }

    /// The golden record whose prompt the tests send (its first adapter steps have wide margins).
    static func golden(_ id: String) throws -> [String: Any] {
        let text = try String(contentsOfFile: TestServer.golden + "/lora/greedy.jsonl", encoding: .utf8)
        for line in text.split(separator: "\n") {
            let record = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            if record["id"] as? String == id { return record }
        }
        throw CocoaError(.fileReadCorruptFile)
    }

    static func chatBody(_ question: String, lora: String?, maxTokens: Int = 8, logprobs: Bool = false) -> String {
        let question = question.replacingOccurrences(of: "\"", with: "\\\"")
        return "{\"model\": \"\(model)\", \"temperature\": 0, \"max_tokens\": \(maxTokens), "
            + (logprobs ? "\"logprobs\": true, \"top_logprobs\": 2, " : "")
            + (lora.map { "\"lora\": \($0), " } ?? "")
            + "\"messages\": [{\"role\": \"user\", \"content\": \"\(question)\"}]}"
    }

    static func json(_ response: LoopbackClient.Response) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any], "not JSON: \(response.text)")
    }

    static func content(_ response: LoopbackClient.Response) throws -> String {
        let choices = try #require(try json(response)["choices"] as? [[String: Any]])
        let message = try #require(choices.first?["message"] as? [String: Any])
        return try #require(message["content"] as? String)
    }

    /// A reply's tokens, each with its top-2 logprob margin.
    static func tokens(_ response: LoopbackClient.Response) throws -> [(token: String, margin: Double)] {
        let choices = try #require(try json(response)["choices"] as? [[String: Any]])
        let content = try #require((choices.first?["logprobs"] as? [String: Any])?["content"] as? [[String: Any]])
        return try content.map { entry in
            let top = try #require(entry["top_logprobs"] as? [[String: Any]])
            let a = try #require(top.first?["logprob"] as? Double), b = try #require(top.last?["logprob"] as? Double)
            return (try #require(entry["token"] as? String), a - b)
        }
    }

    @Test func `one resident base answers as the pirate adapter only when a request asks for it`() async throws {
        let record = try Self.golden("p02")
        let question = try #require((record["messages"] as? [[String: Any]])?.first?["content"] as? String)
        let pirate = try #require((record["lora_1.0"] as? [String: Any])?["text"] as? String)
        let server = try await TestServer.start()
        let port = server.port
        let lora = "[{\"id\": \"\(Self.adapterPath)\", \"scale\": 1.0}]"
        let (before, with, after, bare) = try await offPool {
            let client = try LoopbackClient(port: port)
            let before = try client.post("/v1/chat/completions", json: Self.chatBody(question, lora: nil, logprobs: true))
            let with = try client.post("/v1/chat/completions", json: Self.chatBody(question, lora: lora))
            let after = try client.post("/v1/chat/completions", json: Self.chatBody(question, lora: nil, logprobs: true))
            let bare = try client.post("/v1/completions", json: "{\"model\": \"\(Self.model)\", \"max_tokens\": 1, \"prompt\": \"Ahoy\", \"lora\": \"\(Self.adapterPath)\"}")
            return (before, with, after, bare)
        }
        #expect(before.status == 200 && with.status == 200 && after.status == 200 && bare.status == 200, "\(with.text)")
        let base = try Self.content(before), adapted = try Self.content(with), restored = try Self.content(after)
        print("[lora serve] base: \(base) | pirate: \(adapted) | base again: \(restored)")
        // Eight greedy tokens of the adapter are llama.cpp's (its top-2 margins there are ≥ 2.6).
        #expect(adapted.hasPrefix("Arr") && adapted.count >= 12 && pirate.hasPrefix(adapted), "'\(adapted)' is not the start of '\(pirate)'")
        #expect(!base.hasPrefix("Ar"))
        // The base again, on the session the adapter used: its prompt comes back from the prompt
        // cache (the copy the base request left), all but the last token, so the reply may leave
        // the first one only where that one's top two tokens are within 1 logprob.
        let (baseTokens, restoredTokens) = (try Self.tokens(before), try Self.tokens(after))
        let same = zip(baseTokens, restoredTokens).prefix { $0.token == $1.token }.count
        if same < baseTokens.count {
            #expect(baseTokens[same].margin < 1.0, "the pooled session kept the adapter: '\(restored)' against '\(base)'")
        }
        #expect(!restored.hasPrefix("Ar"))
        #expect(try Self.json(before)["lora"] == nil)
        let echoed = try #require(try Self.json(with)["lora"] as? [[String: Any]])
        #expect(echoed.count == 1 && echoed.first?["id"] as? String == Self.adapterPath && echoed.first?["scale"] as? Double == 1)
        let bareEcho = try #require(try Self.json(bare)["lora"] as? [[String: Any]])
        #expect(bareEcho.first?["scale"] as? Double == 1)
        // The adapter was loaded once, with the resident base.
        let models = try await server.host.ai.runtime().residency.snapshot().models
        #expect(models.count == 1)
        await server.stop(grace: 5)
    }

    @Test func `unknown, mismatched and badly scaled adapters are OpenAI errors`() async throws {
        let server = try await TestServer.start()
        let port = server.port
        // A file that is a model, not an adapter: it exists but cannot be applied.
        let installed = try #require(try await server.host.ai.runtime().store.resolve(Self.model), "model not installed: run scripts/setup.sh")
        let modelFile = try #require(installed.firstPath(withSuffix: ".gguf"))
        let (unknown, mismatched, badScale, badShape) = try await offPool {
            let client = try LoopbackClient(port: port)
            let unknown = try client.post("/v1/chat/completions", json: Self.chatBody("hi", lora: "[\"no-such-adapter\"]", maxTokens: 1))
            let mismatched = try client.post("/v1/chat/completions", json: Self.chatBody("hi", lora: "[{\"id\": \"\(modelFile)\"}]", maxTokens: 1))
            let badScale = try client.post("/v1/chat/completions", json: Self.chatBody("hi", lora: "[{\"id\": \"\(Self.adapterPath)\", \"scale\": \"big\"}]", maxTokens: 1))
            let badShape = try client.post("/v1/completions", json: "{\"model\": \"\(Self.model)\", \"prompt\": \"x\", \"lora\": [{\"scale\": 1}]}")
            return (unknown, mismatched, badScale, badShape)
        }
        #expect(unknown.status == 404)
        let unknownError = try #require(try Self.json(unknown)["error"] as? [String: Any])
        #expect(unknownError["code"] as? String == "adapter_not_found" && unknownError["param"] as? String == "lora")
        #expect(mismatched.status == 400)
        let mismatchError = try #require(try Self.json(mismatched)["error"] as? [String: Any])
        #expect(mismatchError["code"] as? String == "adapter_mismatch")
        #expect((mismatchError["message"] as? String)?.contains("general.type is 'model'") == true, "\(mismatched.text)")
        #expect(badScale.status == 400 && badScale.text.contains("scale"))
        #expect(badShape.status == 400)
        await server.stop(grace: 5)
    }
}
