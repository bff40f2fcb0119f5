import Foundation
import Server
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
}
