import Foundation
import TestSupport
import Server
import Testing

/// The server driven by real clients on real models: the official openai Python package, a
/// client that hangs up mid-stream, and a short load test. Serialized: each keeps both cores busy.
@Suite(.serialized) struct OpenAIClientTests {
    /// Where scripts/setup-openai.sh installs the client.
    static var pythonPath: String {
        let env = ProcessInfo.processInfo.environment
        if let dir = env["ONDEVICE_PYTHON_CACHE"], !dir.isEmpty { return dir }
        return NSHomeDirectory() + "/.cache/ondevice/python"
    }

    /// Runs `python3 args` with the cached client on PYTHONPATH; (exit status, output).
    static func python(_ args: [String]) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + args
        var env = ProcessInfo.processInfo.environment
        env["PYTHONPATH"] = [pythonPath, env["PYTHONPATH"]].compactMap { $0 }.joined(separator: ":")
        env["NO_PROXY"] = "127.0.0.1,localhost"
        process.environment = env
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test func `the official openai client gets every endpoint right`() async throws {
        // The client is part of the test setup (scripts/setup.sh runs scripts/setup-openai.sh):
        // without it this is a failure, not a pass.
        let (found, why) = try await offPool { try Self.python(["-c", "import openai; print(openai.__version__)"]) }
        try #require(found == 0, "python3 cannot import the openai package from \(Self.pythonPath) (run scripts/setup-openai.sh): \(why)")
        let server = try await TestServer.start(apiKey: "test-key")
        let script = TestServer.repositoryRoot + "/Tests/ServerTests/client_check.py"
        let wav = TestServer.golden + "/audio/p01_piper_weather.wav"
        let port = server.port
        let (status, output) = try await offPool { try Self.python([script, "http://127.0.0.1:\(port)/v1", "test-key", wav]) }
        print(output.split(separator: "\n").map { "[openai] \($0)" }.joined(separator: "\n"))
        #expect(status == 0, "client_check.py failed:\n\(output)")
        #expect(output.contains("0 failed"))
        await server.stop(grace: 5)
    }

    @Test func `a client that hangs up mid-stream cancels its generation`() async throws {
        let server = try await TestServer.start()
        let port = server.port
        let body = "{\"model\": \"smollm2-135m-instruct-q4_1\", \"stream\": true, \"max_tokens\": 1500, \"temperature\": 1, \"ignore\": 1, \"messages\": [{\"role\": \"user\", \"content\": \"Write a very long story about a dragon.\"}]}"
        let queue = server.host.queue(for: "smollm2-135m-instruct-q4_1")
        let head = try await offPool {
            let client = try LoopbackClient(port: port)
            client.send(Array("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)".utf8))
            // The head arrives once generation starts; then the client gives up. The server
            // notices the hang-up at the next token.
            let head = try client.readHead()
            client.hangUp()
            return head
        }
        #expect(head.status == 200 && head.headers["content-type"] == "text/event-stream")
        var waited = 0
        while queue.counts.running > 0 && waited < 600 {
            try await Task.sleep(for: .milliseconds(100))
            waited += 1
        }
        #expect(queue.counts.running == 0, "generation still running after the client left")
        let leases = try await server.host.ai.runtime().residency.snapshot().models.reduce(0) { $0 + $1.leases }
        #expect(leases == 0)
        await server.stop(grace: 5)
    }

    @Test func `a full queue answers 429 in OpenAI's shape`() async throws {
        let server = try await TestServer.start(maxRunning: 1, maxWaiting: 0)
        let port = server.port
        let long = "{\"model\": \"smollm2-135m-instruct-q4_1\", \"stream\": true, \"max_tokens\": 1500, \"messages\": [{\"role\": \"user\", \"content\": \"Write a very long story.\"}]}"
        let (head, refused) = try await offPool {
            let busy = try LoopbackClient(port: port)
            busy.send(Array("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: \(long.utf8.count)\r\n\r\n\(long)".utf8))
            let head = try busy.readHead()  // the one slot is now generating
            let refused = try LoopbackClient(port: port).post("/v1/chat/completions", json: "{\"model\": \"smollm2-135m-instruct-q4_1\", \"max_tokens\": 1, \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}")
            busy.hangUp()
            return (head, refused)
        }
        #expect(head.status == 200)
        #expect(refused.status == 429)
        #expect(refused.text.contains("\"type\":\"rate_limit_error\"") && refused.text.contains("\"code\":\"rate_limit_exceeded\""))
        await server.stop(grace: 5)
    }

    @Test func `sixteen concurrent clients for ten seconds see no errors`() async throws {
        let server = try await TestServer.start()
        // Warm up: the first request loads the model.
        let port = server.port
        let warm = try await offPool {
            try LoopbackClient(port: port).post("/v1/chat/completions", json: "{\"model\": \"smollm2-135m-instruct-q4_1\", \"max_tokens\": 1, \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}")
        }
        #expect(warm.status == 200, "\(warm.text)")
        let report = try await offPool { LoadTest(port: port, clients: 16, seconds: 10).run() }
        print("[server] \(report.summary)")
        #expect(report.errors == 0, "\(report.failures) \(report.firstFailure ?? "")")
        #expect(report.requests > 0)
        await server.stop(grace: 30)
    }
}
