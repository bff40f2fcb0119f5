import Foundation
import Server
import Testing

/// Raw-socket requests a well-behaved client would never send. Each gets the right status and
/// an OpenAI-shaped error, and the server keeps answering afterwards. None of these load a model.
@Suite struct HostileInputTests {
    static func error(_ r: LoopbackClient.Response) -> (type: String?, code: String?, param: String?) {
        let object = (try? JSONSerialization.jsonObject(with: Data(r.body))) as? [String: Any]
        let e = object?["error"] as? [String: Any]
        return (e?["type"] as? String, e?["code"] as? String, e?["param"] as? String)
    }

    static func healthy(_ port: UInt16) throws -> Bool {
        try LoopbackClient(port: port).request("GET", "/health").status == 200
    }

    @Test func `malformed JSON is a 400 and the connection stays usable`() async throws {
        let server = try await TestServer.start(limits: TestServer.tightLimits)
        let client = try LoopbackClient(port: server.port)
        for body in ["{\"model\": ", "not json", "[1,2,3]", String(repeating: "[", count: 5000), "{\"model\": \"x\"} trailing"] {
            let r = try client.post("/v1/chat/completions", json: body)
            #expect(r.status == 400, "\(body.prefix(20)): \(r.text)")
            #expect(Self.error(r).type == "invalid_request_error")
        }
        #expect(try client.request("GET", "/health").status == 200)
        await server.stop(grace: 1)
    }

    @Test func `wrong field types are a 400 naming the field`() async throws {
        let server = try await TestServer.start(limits: TestServer.tightLimits)
        let client = try LoopbackClient(port: server.port)
        let cases = [("{\"messages\": []}", "model"), ("{\"model\": 3, \"messages\": []}", "model"),
                     ("{\"model\": \"m\", \"messages\": \"hi\"}", "messages"),
                     ("{\"model\": \"m\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}], \"max_tokens\": \"9\"}", "max_tokens"),
                     ("{\"model\": \"m\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}], \"temperature\": 7}", "temperature"),
                     ("{\"model\": \"m\", \"messages\": [{\"role\": \"pirate\", \"content\": \"hi\"}]}", "messages[0]")]
        for (body, param) in cases {
            let r = try client.post("/v1/chat/completions", json: body)
            #expect(r.status == 400, "\(body): \(r.text)")
            #expect(Self.error(r).param == param, "\(body): \(r.text)")
        }
        await server.stop(grace: 1)
    }

    @Test func `unknown fields are ignored and unknown models are a 404`() async throws {
        let server = try await TestServer.start(limits: TestServer.tightLimits)
        let client = try LoopbackClient(port: server.port)
        let body = "{\"model\": \"no-such-model\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\", \"x_extra\": 1}], \"logit_bias\": {}, \"frobnicate\": [true]}"
        let r = try client.post("/v1/chat/completions", json: body)
        #expect(r.status == 404)
        #expect(Self.error(r).code == "model_not_found")
        let embed = try client.post("/v1/embeddings", json: "{\"model\": \"smollm2-135m-instruct-q4_1\", \"input\": \"hi\", \"user\": \"u\"}")
        #expect(embed.status == 400, "an LLM cannot embed: \(embed.text)")
        await server.stop(grace: 1)
    }

    @Test func `oversized bodies are a 413 and the server stays up`() async throws {
        let server = try await TestServer.start(limits: TestServer.tightLimits)
        let big = try LoopbackClient(port: server.port)
        big.send(Array("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 10000000\r\n\r\n".utf8))
        // The announced length alone is refused, before any body byte is read.
        #expect(try big.readResponse().status == 413)
        #expect(big.isClosedByServer(within: 5))
        let sent = try LoopbackClient(port: server.port).post("/v1/chat/completions", json: String(repeating: " ", count: 200_000))
        #expect(sent.status == 413)
        let chunked = try LoopbackClient(port: server.port)
        var raw = Array("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        for _ in 0..<20 { raw += Array("1000\r\n".utf8) + [UInt8](repeating: 32, count: 4096) + [13, 10] }
        chunked.send(raw)
        #expect(try chunked.readResponse().status == 413)
        #expect(try Self.healthy(server.port))
        await server.stop(grace: 1)
    }

    @Test func `a head that never finishes times out with 408`() async throws {
        let server = try await TestServer.start(limits: TestServer.tightLimits)
        let slow = try LoopbackClient(port: server.port)
        slow.send(Array("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nX-Slow: ".utf8))
        let r = try slow.readResponse()
        #expect(r.status == 408)
        #expect(slow.isClosedByServer(within: 5))
        let headers = try LoopbackClient(port: server.port)
        headers.send(Array(("GET /health HTTP/1.1\r\n" + String(repeating: "X-Pad: 0123456789\r\n", count: 400) + "\r\n").utf8))
        #expect(try headers.readResponse().status == 431)
        #expect(try Self.healthy(server.port))
        await server.stop(grace: 1)
    }

    @Test func `wrong content types are a 415`() async throws {
        let server = try await TestServer.start(limits: TestServer.tightLimits)
        let client = try LoopbackClient(port: server.port)
        let xml = try client.request("POST", "/v1/chat/completions", body: Array("<a/>".utf8), headers: ["Content-Type": "application/xml"])
        #expect(xml.status == 415)
        let json = try client.post("/v1/audio/transcriptions", json: "{\"model\": \"whisper-tiny.en-ct2\"}")
        #expect(json.status == 415)
        let noBoundary = try client.request("POST", "/v1/audio/transcriptions", body: [], headers: ["Content-Type": "multipart/form-data"])
        #expect(noBoundary.status == 400)
        let noFile = try client.request("POST", "/v1/audio/transcriptions", body: Array("--b\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\nwhisper-tiny.en-ct2\r\n--b--\r\n".utf8),
                                        headers: ["Content-Type": "multipart/form-data; boundary=b"])
        #expect(noFile.status == 400 && Self.error(noFile).param == "file", "\(noFile.text)")
        await server.stop(grace: 1)
    }

    @Test func `invalid UTF-8 and garbage request lines are a 400`() async throws {
        let server = try await TestServer.start(limits: TestServer.tightLimits)
        let client = try LoopbackClient(port: server.port)
        let bad = try client.request("POST", "/v1/chat/completions", body: [0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d], headers: ["Content-Type": "application/json"])
        #expect(bad.status == 400)
        for garbage in ["PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "GET\r\n\r\n", "get /health HTTP/1.1\r\n\r\n", "GET /health HTTP/9.9\r\n\r\n",
                        "GET /health HTTP/1.1\r\nNo colon here\r\n\r\n", "GET /health HTTP/1.1\r\nContent-Length: -5\r\n\r\n",
                        "POST /x HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n"] {
            let c = try LoopbackClient(port: server.port)
            c.send(Array(garbage.utf8))
            #expect(try c.readResponse().status == 400, "\(garbage.debugDescription)")
        }
        let c = try LoopbackClient(port: server.port)
        c.send(Array("GET /health HTTP/1.1\r\nX-Bytes: ".utf8) + [0xff, 0xc3] + Array("\r\n\r\n".utf8))
        #expect(try c.readResponse().status == 200, "odd header bytes do not break the head")
        #expect(try Self.healthy(server.port))
        await server.stop(grace: 1)
    }

    @Test func `unknown routes and methods are 404 and 405`() async throws {
        let server = try await TestServer.start(limits: TestServer.tightLimits)
        let client = try LoopbackClient(port: server.port)
        #expect(try client.request("GET", "/v1/nothing").status == 404)
        #expect(try client.request("GET", "/v1/chat/completions").status == 405)
        #expect(try client.request("DELETE", "/v1/models").status == 405)
        #expect(try client.request("GET", "/v1/models/no-such-model").status == 404)
        await server.stop(grace: 1)
    }

    @Test func `an API key is required on every route but health`() async throws {
        let server = try await TestServer.start(apiKey: "s3cret", limits: TestServer.tightLimits)
        let client = try LoopbackClient(port: server.port)
        #expect(try client.request("GET", "/v1/models").status == 401)
        let wrong = try client.request("GET", "/v1/models", headers: ["Authorization": "Bearer s3cre7"])
        #expect(wrong.status == 401 && Self.error(wrong).code == "invalid_api_key")
        #expect(try client.request("GET", "/v1/models", headers: ["Authorization": "Basic s3cret"]).status == 401)
        #expect(try client.request("GET", "/v1/models", headers: ["Authorization": "Bearer s3cret"]).status == 200)
        #expect(try client.request("GET", "/health").status == 200)
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
