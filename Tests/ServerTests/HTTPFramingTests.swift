import Foundation
import Server
import Synchronization
import Testing

/// HTTP/1.1 framing and lifecycle: keep-alive, pipelining, chunked bodies, 100-continue,
/// admission queue, graceful stop. No model is loaded.
@Suite struct HTTPFramingTests {
    @Test func `keep-alive, pipelined requests and chunked bodies work on one connection`() async throws {
        let server = try await TestServer.start(limits: TestServer.tightLimits)
        let client = try LoopbackClient(port: server.port)
        client.send(Array("GET /health HTTP/1.1\r\nHost: x\r\n\r\nGET /health HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        #expect(try client.readResponse().status == 200)
        #expect(try client.readResponse().status == 200)
        let json = "{\"model\": \"no-such-model\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}"
        let half = json.utf8.count / 2
        let chunked = "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
            + String(half, radix: 16) + ";ext=1\r\n" + String(json.prefix(half)) + "\r\n"
            + String(json.utf8.count - half, radix: 16) + "\r\n" + String(json.dropFirst(half)) + "\r\n0\r\nX-Trailer: 1\r\n\r\n"
        client.send(Array(chunked.utf8))
        let r = try client.readResponse()
        #expect(r.status == 404, "the de-chunked body reached the API: \(r.text)")
        #expect(r.headers["connection"] == "keep-alive")
        let close = try client.request("GET", "/health", headers: ["Connection": "close"])
        #expect(close.headers["connection"] == "close")
        #expect(client.isClosedByServer(within: 5))
        await server.stop(grace: 1)
    }

    @Test func `a client expecting 100-continue gets it before sending the body`() async throws {
        let server = try await TestServer.start(limits: TestServer.tightLimits)
        let client = try LoopbackClient(port: server.port)
        let json = "{\"model\": \"no-such-model\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}"
        client.send(Array("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: \(json.utf8.count)\r\n\r\n".utf8))
        // readResponse skips the interim 100 only if it arrives; send the body after asking.
        client.send(Array(json.utf8))
        #expect(try client.readResponse().status == 404)
        await server.stop(grace: 1)
    }

    @Test func `idle keep-alive connections close after the idle timeout`() async throws {
        let server = try await TestServer.start(limits: TestServer.tightLimits)
        let client = try LoopbackClient(port: server.port)
        #expect(try client.request("GET", "/health").status == 200)
        #expect(client.isClosedByServer(within: 30))
        await server.stop(grace: 1)
    }

    @Test func `stopping closes idle connections and refuses new ones`() async throws {
        let server = try await TestServer.start(limits: TestServer.tightLimits)
        let client = try LoopbackClient(port: server.port)
        #expect(try client.request("GET", "/health").status == 200)
        let port = server.port
        await server.stop(grace: 5)
        #expect(client.isClosedByServer(within: 5))
        #expect(server.http.connectionCount == 0)
        #expect(throws: ServerError.self) { try LoopbackClient(port: port).request("GET", "/health") }
    }

    @Test func `the model queue admits, queues in order and refuses when full`() throws {
        let queue = ModelQueue(maxRunning: 1, maxWaiting: 1)
        #expect(try queue.enter(model: "m", isCancelled: { false }))
        let entered = Atomic<Bool>(false)
        let waiter = Thread {
            _ = try? queue.enter(model: "m", isCancelled: { false })
            entered.store(true, ordering: .sequentiallyConsistent)
        }
        waiter.start()
        while queue.counts.waiting == 0 { usleep(1000) }
        #expect(throws: ServerError.queueFull(model: "m", waiting: 1)) { try queue.enter(model: "m", isCancelled: { false }) }
        #expect(!entered.load(ordering: .sequentiallyConsistent))
        queue.leave()  // hands the slot to the waiter
        while !entered.load(ordering: .sequentiallyConsistent) { usleep(1000) }
        #expect(queue.counts.running == 1 && queue.counts.waiting == 0)
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
