import Foundation
import Server
import TestSupport
import Testing

/// The server's connection threads reach the runtime (leases, model loads) through tasks on
/// threads of their own, so requests are answered while an app's own work holds every thread
/// of Swift's cooperative pool. Before, such requests waited for the pool: in full test runs a
/// server test timed out at 120 s behind long synchronous tests.
@Suite(.serialized) struct BlockedPoolServerTests {
    @Test func `requests are answered while every cooperative thread is held`() async throws {
        _ = try #require(TestModels.path(TestModels.smolLM2), "SmolLM2 not installed: run scripts/setup.sh")
        let server = try await TestServer.start()
        let port = server.port
        let chat = #"{"model":"smollm2-135m-instruct-q4_1","max_tokens":2,"temperature":0,"messages":[{"role":"user","content":"Hi"}]}"#
        let (responses, _) = try await withCooperativePoolBlocked {
            let client = try LoopbackClient(port: port)
            // The first loads the model; the second reuses it.
            return [try client.post("/v1/chat/completions", json: chat), try client.post("/v1/chat/completions", json: chat)]
        }
        await server.stop(grace: 5)
        for response in responses { #expect(response.status == 200, "\(response.text)") }
    }
}
