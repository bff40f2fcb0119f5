import Foundation
import TestSupport
import Server
import Testing

/// HTTP/1.1 framing and lifecycle: keep-alive, pipelining, chunked bodies, 100-continue, idle
/// timeout, graceful stop, and the per-model admission queue. No model is loaded.
@Suite struct HTTPFramingTests {
    @Test func `keep-alive, pipelined requests and chunked bodies work on one connection`() async throws {
        let server = try await TestServer.start(limits: TestServer.tightLimits)
        let port = server.port
        let json = "{\"model\": \"no-such-model\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}"
        let half = json.utf8.count / 2
        let chunked = "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
            + String(half, radix: 16) + ";ext=1\r\n" + String(json.prefix(half)) + "\r\n"
            + String(json.utf8.count - half, radix: 16) + "\r\n" + String(json.dropFirst(half)) + "\r\n0\r\nX-Trailer: 1\r\n\r\n"
        let (pipelined, dechunked, close, closed) = try await offPool {
            let client = try LoopbackClient(port: port)
            client.send(Array("GET /health HTTP/1.1\r\nHost: x\r\n\r\nGET /health HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
            let pipelined = [try client.readResponse().status, try client.readResponse().status]
            client.send(Array(chunked.utf8))
            let dechunked = try client.readResponse()
            let close = try client.request("GET", "/health", headers: ["Connection": "close"])
            return (pipelined, dechunked, close, client.isClosedByServer(within: 5))
        }
        #expect(pipelined == [200, 200])
        #expect(dechunked.status == 404, "the de-chunked body reached the API: \(dechunked.text)")
        #expect(dechunked.headers["connection"] == "keep-alive")
        #expect(close.headers["connection"] == "close")
        #expect(closed)
        await server.stop(grace: 1)
    }

    @Test func `a client expecting 100-continue gets it before sending the body`() async throws {
        let server = try await TestServer.start(limits: TestServer.tightLimits)
        let port = server.port
        let (interim, final) = try await offPool {
            let client = try LoopbackClient(port: port)
            let json = "{\"model\": \"no-such-model\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}"
            client.send(Array("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: \(json.utf8.count)\r\n\r\n".utf8))
            let interim = try client.readHead()
            client.send(Array(json.utf8))
            return (interim.status, try client.readResponse().status)
        }
        #expect(interim == 100)
        #expect(final == 404)
        await server.stop(grace: 1)
    }

    @Test func `idle keep-alive connections close after the idle timeout`() async throws {
        let server = try await TestServer.start(limits: TestServer.tightLimits)
        let port = server.port
        let (status, closed) = try await offPool {
            let client = try LoopbackClient(port: port)
            return (try client.request("GET", "/health").status, client.isClosedByServer(within: 30))
        }
        #expect(status == 200 && closed)
        await server.stop(grace: 1)
    }

    @Test func `stopping closes idle connections and refuses new ones`() async throws {
        let server = try await TestServer.start(limits: TestServer.tightLimits)
        let port = server.port
        let client = try await offPool { () throws -> LoopbackClientBox in
            let client = try LoopbackClient(port: port)
            _ = try client.request("GET", "/health")
            return LoopbackClientBox(client)
        }
        await server.stop(grace: 5)
        let closed = try await offPool { client.client.isClosedByServer(within: 5) }
        #expect(closed)
        #expect(server.http.connectionCount == 0)
        let refused = try await offPool { (try? LoopbackClient(port: port).request("GET", "/health")) == nil }
        #expect(refused)
    }

    @Test func `the model queue admits, queues in order and refuses when full`() throws {
        let queue = ModelQueue(maxRunning: 1, maxWaiting: 1)
        #expect(try queue.enter(model: "m", isCancelled: { false }))
        let entered = DispatchSemaphore(value: 0)
        Thread {
            if (try? queue.enter(model: "m", isCancelled: { false })) == true { entered.signal() }
        }.start()
        while queue.counts.waiting == 0 { usleep(1000) }
        #expect(throws: ServerError.queueFull(model: "m", waiting: 1)) { try queue.enter(model: "m", isCancelled: { false }) }
        let enteredEarly = entered.wait(timeout: .now()) == .success
        #expect(!enteredEarly, "the waiter waits while the slot is taken")
        queue.leave()  // hands the slot to the waiter
        entered.wait()
        let counts = queue.counts
        #expect(counts.running == 1 && counts.waiting == 0)
        queue.leave()
        #expect(queue.counts.running == 0)
    }

    @Test func `a waiter whose client leaves gives up its place`() throws {
        let queue = ModelQueue(maxRunning: 1, maxWaiting: 4)
        #expect(try queue.enter(model: "m", isCancelled: { false }))
        #expect(try queue.enter(model: "m", isCancelled: { true }) == false)
        #expect(queue.counts.waiting == 0)
        queue.leave()
        #expect(queue.counts.running == 0)
    }
}

/// Carries a client between the threads of one test (used by one thread at a time).
final class LoopbackClientBox: @unchecked Sendable {
    let client: LoopbackClient
    init(_ client: LoopbackClient) { self.client = client }
}
