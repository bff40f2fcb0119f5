import Foundation
import TestSupport
import Server
import StructuredOutput
import Testing

/// Ollama's API driven by the official `ollama` Python client on the real models: every
/// endpoint and field the door reads, keep-alive loads and unloads, errors, and one core (a
/// greedy raw `/api/generate` equals `/v1/completions`). Serialized: it keeps both cores busy.
@Suite(.serialized) struct OllamaClientTests {
    @Test func `the official ollama client gets every endpoint right`() async throws {
        // The client is part of the test setup (scripts/setup.sh runs scripts/setup-ollama.sh):
        // without it this is a failure, not a pass.
        let (found, why) = try await offPool { try OpenAIClientTests.python(["-c", "import ollama, httpx"]) }
        try #require(found == 0, "python3 cannot import the ollama package from \(OpenAIClientTests.pythonPath) (run scripts/setup-ollama.sh): \(why)")
        let server = try await TestServer.start(apiKey: "test-key")
        let script = TestServer.repositoryRoot + "/Tests/ServerTests/ollama_check.py"
        let port = server.port
        let (status, output) = try await offPool { try OpenAIClientTests.python([script, "http://127.0.0.1:\(port)", "test-key"]) }
        print(output.split(separator: "\n").map { "[ollama] \($0)" }.joined(separator: "\n"))
        #expect(status == 0, "ollama_check.py failed:\n\(output)")
        #expect(output.contains(" 0 failed"))
        await server.stop(grace: 5)
    }

    @Test func `a client that hangs up mid-stream cancels its Ollama generation`() async throws {
        let server = try await TestServer.start()
        let port = server.port
        // No "stream": Ollama's default is to stream.
        let body = "{\"model\": \"smollm2-135m-instruct-q4_1:latest\", \"prompt\": \"Write a very long story about a dragon.\", \"keep_alive\": \"10m\", \"options\": {\"num_predict\": 1500, \"temperature\": 1}}"
        let queue = server.host.queue(for: "smollm2-135m-instruct-q4_1")
        let head = try await offPool {
            let client = try LoopbackClient(port: port)
            client.send(Array("POST /api/generate HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)".utf8))
            let head = try client.readHead()  // sent once generation starts; then the client leaves
            client.hangUp()
            return head
        }
        #expect(head.status == 200 && head.headers["content-type"] == "application/x-ndjson")
        var waited = 0
        while queue.counts.running > 0 && waited < 600 {
            try await Task.sleep(for: .milliseconds(100))
            waited += 1
        }
        #expect(queue.counts.running == 0, "generation still running after the client left")
        let models = try await server.host.ai.runtime().residency.snapshot().models
        #expect(models.reduce(0) { $0 + $1.leases } == 0)
        // The request's keep_alive reached the residency cache: idle now, kept for ten minutes.
        let left = models.first { $0.modelId == "smollm2-135m-instruct-q4_1" }?.idleSecondsLeft ?? 0
        #expect(left > 540 && left <= 600, "\(left)")
        await server.stop(grace: 5)
    }

    @Test func `a greedy raw Ollama generate writes what v1 completions writes`() async throws {
        // One text core behind both doors. The model is loaded afresh for each request (the
        // first finds none; keep_alive 0 unloads it after), so neither reuses the other's
        // cached prompt.
        let server = try await TestServer.start()
        let port = server.port
        let prompt = "Water boils at"
        let (ollama, openai) = try await offPool {
            let a = try LoopbackClient(port: port).post("/api/generate", json: """
                {"model": "smollm2-135m-instruct-q4_1", "prompt": "\(prompt)", "raw": true, "stream": false, "keep_alive": 0,
                 "options": {"temperature": 0, "seed": 5, "num_predict": 24}}
                """)
            let b = try LoopbackClient(port: port).post("/v1/completions", json: """
                {"model": "smollm2-135m-instruct-q4_1", "prompt": "\(prompt)", "temperature": 0, "seed": 5, "max_tokens": 24}
                """)
            return (a, b)
        }
        try #require(ollama.status == 200 && openai.status == 200, "\(ollama.text)\n\(openai.text)")
        let generated = try JSONValue(parsing: ollama.text)["response"]?.string
        guard case .array(let choices)? = try JSONValue(parsing: openai.text)["choices"] else {
            Issue.record("no choices: \(openai.text)")
            return
        }
        let completed = choices.first?["text"]?.string
        #expect(generated != nil && !(generated ?? "").isEmpty)
        #expect(generated == completed)
        await server.stop(grace: 5)
    }
}
