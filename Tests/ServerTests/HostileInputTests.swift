import Foundation
import TestSupport
import Server
import Testing

/// Raw-socket requests a well-behaved client would never send. Each gets the right status and
/// an OpenAI-shaped error, and the server keeps answering afterwards. None of these load a model.
@Suite struct HostileInputTests {
    typealias Response = LoopbackClient.Response

    static func error(_ r: Response) -> (type: String?, code: String?, param: String?) {
        let object = (try? JSONSerialization.jsonObject(with: Data(r.body))) as? [String: Any]
        let e = object?["error"] as? [String: Any]
        return (e?["type"] as? String, e?["code"] as? String, e?["param"] as? String)
    }

    /// Sends `raw` on a new connection and reads one response.
    static func exchange(_ port: UInt16, _ raw: [UInt8]) throws -> Response {
        let client = try LoopbackClient(port: port)
        client.send(raw)
        return try client.readResponse()
    }

    static func healthy(_ port: UInt16) async throws -> Bool {
        try await offPool { try LoopbackClient(port: port).request("GET", "/health").status } == 200
    }

    @Test func `malformed JSON is a 400 and the connection stays usable`() async throws {
        let server = try await TestServer.start(limits: TestServer.tightLimits)
        let port = server.port
        let bodies = ["{\"model\": ", "not json", "[1,2,3]", String(repeating: "[", count: 5000), "{\"model\": \"x\"} trailing"]
        let responses = try await offPool {
            let client = try LoopbackClient(port: port)
            return try bodies.map { body throws(ServerError) in try client.post("/v1/chat/completions", json: body) }
                + [try client.request("GET", "/health")]
        }
        for (body, r) in zip(bodies, responses) {
            #expect(r.status == 400, "\(body.prefix(20)): \(r.text)")
            #expect(Self.error(r).type == "invalid_request_error")
        }
        #expect(responses.last?.status == 200, "the same connection still serves")
        await server.stop(grace: 1)
    }

    @Test func `wrong field types are a 400 naming the field`() async throws {
        let server = try await TestServer.start(limits: TestServer.tightLimits)
        let port = server.port
        let cases = [("{\"messages\": []}", "model"), ("{\"model\": 3, \"messages\": []}", "model"),
                     ("{\"model\": \"m\", \"messages\": \"hi\"}", "messages"),
                     ("{\"model\": \"m\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}], \"max_tokens\": \"9\"}", "max_tokens"),
                     ("{\"model\": \"m\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}], \"temperature\": 7}", "temperature"),
                     ("{\"model\": \"m\", \"messages\": [{\"role\": \"pirate\", \"content\": \"hi\"}]}", "messages[0]"),
                     ("{\"model\": \"m\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}], \"response_format\": {\"type\": \"yaml\"}}", "response_format"),
                     ("{\"model\": \"m\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}], \"tools\": [{\"type\": \"function\"}]}", "tools[0]")]
        // The OpenAI fields of issue #20: each wrong type or range names its field.
        let hi = "\"model\": \"m\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]"
        let tool = "\"tools\": [{\"type\": \"function\", \"function\": {\"name\": \"f\"}}]"
        let fields = [("{\(hi), \"n\": \"2\"}", "n"), ("{\(hi), \"n\": 9}", "n"), ("{\(hi), \"n\": 0}", "n"),
                      ("{\(hi), \"logprobs\": 2}", "logprobs"), ("{\(hi), \"logprobs\": true, \"top_logprobs\": 21}", "top_logprobs"),
                      ("{\(hi), \"top_logprobs\": 2}", "top_logprobs"), ("{\(hi), \"logprobs\": true, \"top_logprobs\": 1.5}", "top_logprobs"),
                      ("{\(hi), \(tool), \"tool_choice\": \"always\"}", "tool_choice"), ("{\(hi), \(tool), \"tool_choice\": 1}", "tool_choice"),
                      ("{\(hi), \(tool), \"tool_choice\": {\"type\": \"function\"}}", "tool_choice"),
                      ("{\(hi), \(tool), \"tool_choice\": {\"type\": \"function\", \"function\": {\"name\": \"g\"}}}", "tool_choice"),
                      ("{\(hi), \"tool_choice\": \"required\"}", "tool_choice"), ("{\(hi), \(tool), \"parallel_tool_calls\": 0}", "parallel_tool_calls")]
        let completions = [("{\"model\": \"m\", \"prompt\": \"hi\", \"logprobs\": true}", "logprobs"),
                           ("{\"model\": \"m\", \"prompt\": \"hi\", \"logprobs\": 6}", "logprobs"),
                           ("{\"model\": \"m\", \"prompt\": \"hi\", \"n\": 9}", "n")]
        let responses = try await offPool {
            let client = try LoopbackClient(port: port)
            return try (cases + fields).map { c throws(ServerError) in try client.post("/v1/chat/completions", json: c.0) }
                + completions.map { c throws(ServerError) in try client.post("/v1/completions", json: c.0) }
        }
        for ((body, param), r) in zip(cases + fields + completions, responses) {
            #expect(r.status == 400, "\(body): \(r.text)")
            #expect(Self.error(r).param == param, "\(body): \(r.text)")
        }
        await server.stop(grace: 1)
    }

    @Test func `unknown fields are ignored and unknown models are a 404`() async throws {
        let server = try await TestServer.start(limits: TestServer.tightLimits)
        let port = server.port
        let (r, embed) = try await offPool {
            let client = try LoopbackClient(port: port)
            let body = "{\"model\": \"no-such-model\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\", \"x_extra\": 1}], \"logit_bias\": {}, \"frobnicate\": [true]}"
            return (try client.post("/v1/chat/completions", json: body),
                    try client.post("/v1/embeddings", json: "{\"model\": \"smollm2-135m-instruct-q4_1\", \"input\": \"hi\", \"user\": \"u\"}"))
        }
        #expect(r.status == 404)
        #expect(Self.error(r).code == "model_not_found")
        #expect(embed.status == 400, "an LLM cannot embed: \(embed.text)")
        await server.stop(grace: 1)
    }

    @Test func `oversized bodies are a 413 and the server stays up`() async throws {
        let server = try await TestServer.start(limits: TestServer.tightLimits)
        let port = server.port
        let (announced, closed, sent, chunked) = try await offPool {
            // The announced length alone is refused, before any body byte is read.
            let big = try LoopbackClient(port: port)
            big.send(Array("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 10000000\r\n\r\n".utf8))
            let announced = try big.readResponse()
            let closed = big.isClosedByServer(within: 5)
            let sent = try LoopbackClient(port: port).post("/v1/chat/completions", json: String(repeating: " ", count: 200_000))
            var raw = Array("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
            for _ in 0..<20 { raw += Array("1000\r\n".utf8) + [UInt8](repeating: 32, count: 4096) + [13, 10] }
            return (announced, closed, sent, try Self.exchange(port, raw))
        }
        #expect(announced.status == 413 && Self.error(announced).code == "request_too_large")
        #expect(closed)
        #expect(sent.status == 413)
        #expect(chunked.status == 413)
        #expect(try await Self.healthy(port))
        await server.stop(grace: 1)
    }

    @Test func `a head that never finishes times out with 408`() async throws {
        let server = try await TestServer.start(limits: TestServer.tightLimits)
        let port = server.port
        let (slow, closed, headers) = try await offPool {
            let client = try LoopbackClient(port: port)
            client.send(Array("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nX-Slow: ".utf8))
            let slow = try client.readResponse()
            let closed = client.isClosedByServer(within: 5)
            let big = "GET /health HTTP/1.1\r\n" + String(repeating: "X-Pad: 0123456789\r\n", count: 400) + "\r\n"
            return (slow, closed, try Self.exchange(port, Array(big.utf8)))
        }
        #expect(slow.status == 408)
        #expect(closed)
        #expect(headers.status == 431)
        #expect(try await Self.healthy(port))
        await server.stop(grace: 1)
    }

    @Test func `wrong content types are a 415`() async throws {
        let server = try await TestServer.start(limits: TestServer.tightLimits)
        let port = server.port
        let r = try await offPool {
            let client = try LoopbackClient(port: port)
            let form = Array("--b\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\nwhisper-tiny.en-ct2\r\n--b--\r\n".utf8)
            return [try client.request("POST", "/v1/chat/completions", body: Array("<a/>".utf8), headers: ["Content-Type": "application/xml"]),
                    try client.post("/v1/audio/transcriptions", json: "{\"model\": \"whisper-tiny.en-ct2\"}"),
                    try client.request("POST", "/v1/audio/transcriptions", body: [], headers: ["Content-Type": "multipart/form-data"]),
                    try client.request("POST", "/v1/audio/transcriptions", body: form, headers: ["Content-Type": "multipart/form-data; boundary=b"])]
        }
        #expect(r[0].status == 415)
        #expect(r[1].status == 415)
        #expect(r[2].status == 400, "multipart without a boundary")
        #expect(r[3].status == 400 && Self.error(r[3]).param == "file", "\(r[3].text)")
        await server.stop(grace: 1)
    }

    @Test func `invalid UTF-8 and garbage request lines are a 400`() async throws {
        let server = try await TestServer.start(limits: TestServer.tightLimits)
        let port = server.port
        let garbage = ["PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "GET\r\n\r\n", "get /health HTTP/1.1\r\n\r\n", "GET /health HTTP/9.9\r\n\r\n",
                       "GET /health HTTP/1.1\r\nNo colon here\r\n\r\n", "GET /health HTTP/1.1\r\nContent-Length: -5\r\n\r\n",
                       "POST /x HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n"]
        let (bad, lines, odd) = try await offPool {
            let bad = try LoopbackClient(port: port).request("POST", "/v1/chat/completions", body: [0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d],
                                                             headers: ["Content-Type": "application/json"])
            let lines = try garbage.map { g throws in try Self.exchange(port, Array(g.utf8)) }
            let odd = try Self.exchange(port, Array("GET /health HTTP/1.1\r\nX-Bytes: ".utf8) + [0xff, 0xc3] + Array("\r\n\r\n".utf8))
            return (bad, lines, odd)
        }
        #expect(bad.status == 400)
        for (g, r) in zip(garbage, lines) { #expect(r.status == 400, "\(g.debugDescription)") }
        #expect(odd.status == 200, "odd header bytes do not break the head")
        #expect(try await Self.healthy(port))
        await server.stop(grace: 1)
    }

    @Test func `unknown routes and methods are 404 and 405`() async throws {
        let server = try await TestServer.start(limits: TestServer.tightLimits)
        let port = server.port
        let statuses = try await offPool {
            let client = try LoopbackClient(port: port)
            return try [("GET", "/v1/nothing"), ("GET", "/v1/chat/completions"), ("DELETE", "/v1/models"), ("GET", "/v1/models/no-such-model")]
                .map { m, p throws(ServerError) in try client.request(m, p).status }
        }
        #expect(statuses == [404, 405, 405, 404])
        await server.stop(grace: 1)
    }

    @Test func `an API key is required on every route but health`() async throws {
        let server = try await TestServer.start(apiKey: "s3cret", limits: TestServer.tightLimits)
        let port = server.port
        let r = try await offPool {
            let client = try LoopbackClient(port: port)
            return [try client.request("GET", "/v1/models"),
                    try client.request("GET", "/v1/models", headers: ["Authorization": "Bearer s3cre7"]),
                    try client.request("GET", "/v1/models", headers: ["Authorization": "Basic s3cret"]),
                    try client.request("GET", "/v1/models", headers: ["Authorization": "Bearer s3cret"]),
                    try client.request("GET", "/health")]
        }
        #expect(r.map(\.status) == [401, 401, 401, 200, 200])
        #expect(Self.error(r[1]).code == "invalid_api_key" && Self.error(r[1]).type == "authentication_error")
        await server.stop(grace: 1)
    }

    @Test func `binding beyond loopback needs an API key`() {
        var c = ServerConfiguration()
        c.host = "0.0.0.0"
        #expect(throws: ServerError.apiKeyRequired(host: "0.0.0.0")) { try c.validate() }
        c.apiKey = "k"
        #expect(throws: Never.self) { try c.validate() }
    }
}
