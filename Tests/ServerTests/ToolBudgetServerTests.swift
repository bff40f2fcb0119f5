import Foundation
import Server
import TestSupport
import Testing

/// A reply that opens a call as bare JSON is written again under the call grammar. When
/// `max_tokens` cannot hold the shortest call, that second pass used to refuse every token and
/// the request failed with a 500; now it runs until the budget ends, like any reply cut short.
@Suite(.serialized) struct ToolBudgetServerTests {
    @Test func `a tool call that does not fit max_tokens ends with length, not an error`() async throws {
        _ = try #require(TestModels.path(TestModels.qwen25), "Qwen2.5 not installed: run scripts/setup.sh")
        let tools = #"[{"type":"function","function":{"name":"get_weather","description":"Current weather for a city","#
            + #""parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}},"#
            + #"{"type":"function","function":{"name":"add","description":"Add two numbers","#
            + #""parameters":{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}}}]"#
        // After a tool result, with the tools still offered (as clients send them).
        let messages = #"[{"role":"user","content":"What is the weather in Paris?"},"#
            + #"{"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},"#
            + #"{"role":"tool","tool_call_id":"c1","content":"18 degrees and cloudy"}]"#
        let server = try await TestServer.start()
        let port = server.port
        let responses = try await offPool {
            let client = try LoopbackClient(port: port)
            return try [4, 16, 128].map { maxTokens in
                try client.post("/v1/chat/completions", json: #"{"model":"qwen2.5-coder-0.5b-instruct-q4_k_m","temperature":0,"#
                    + #""max_tokens":\#(maxTokens),"tools":\#(tools),"messages":\#(messages)}"#)
            }
        }
        await server.stop(grace: 5)
        for (maxTokens, response) in zip([4, 16, 128], responses) {
            #expect(response.status == 200, "max_tokens \(maxTokens): \(response.text)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
            let choice = try #require((json["choices"] as? [[String: Any]])?.first, "\(response.text)")
            let finish = try #require(choice["finish_reason"] as? String)
            let completion = try #require((json["usage"] as? [String: Any])?["completion_tokens"] as? Int)
            #expect(completion <= maxTokens, "max_tokens \(maxTokens): \(response.text)")
            // Cut short or whole; a whole call is a parsed call.
            #expect(["length", "stop", "tool_calls"].contains(finish), "\(response.text)")
            if finish == "tool_calls" {
                let message = try #require(choice["message"] as? [String: Any])
                #expect((message["tool_calls"] as? [Any])?.isEmpty == false, "\(response.text)")
            }
        }
    }
}
