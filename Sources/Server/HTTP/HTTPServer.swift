import Foundation
import Platform
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Answers one request on its connection's thread. Model work runs right there, synchronously:
/// each connection has its own thread, so a long generation never starves the accept loop or
/// Swift's small cooperative pool.
package protocol HTTPHandling: Sendable {
    func handle(_ request: HTTPRequest, _ responder: HTTPResponder)
}

/// A small HTTP/1.1 server over POSIX sockets: one accept thread, one thread per connection,
/// keep-alive, Content-Length and chunked request bodies, chunked responses (server-sent
/// events), size limits and timeouts, and a graceful stop.
package final class HTTPServer: Sendable {
    /// What a request may cost. Defaults suit a local API server taking audio uploads.
    package struct Limits: Sendable, Equatable {
        /// Request line plus headers (431 beyond).
        package var maxHeadBytes = 16 * 1024
        package var maxHeaderCount = 100
        /// Decoded body (413 beyond).
        package var maxBodyBytes = 32 * 1024 * 1024
        /// Seconds from a request's first byte to the end of its head (slow-header clients).
        package var headTimeout = 10.0
        /// Seconds a kept-alive connection may wait for its next request.
        package var idleTimeout = 15.0
        /// Seconds for a whole body to arrive.
        package var bodyTimeout = 60.0
        /// Open connections (each holds a thread); beyond it a new one gets 503.
        package var maxConnections = 256
        package init() {}
    }

    private struct State {
        var connections = 0
        /// No new connections; idle ones close.
        var stopping = false
        /// The grace period is over: running requests are cancelled.
        var aborted = false
        var listenerClosed = false
    }

    package let host: String
    /// The bound port (the kernel's choice when 0 was asked).
    package let port: UInt16
    package let limits: Limits
    private let listener: Int32
    private let handler: any HTTPHandling
    private let state = Locked(State())
    private let finished = DispatchSemaphore(value: 0)

    /// Binds and listens; call `start` to accept. `host` is an IPv4 address.
    package init(host: String = "127.0.0.1", port: UInt16 = 0, limits: Limits = Limits(), handler: any HTTPHandling) throws(ServerError) {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            throw .bind(host: host, port: Int(port), reason: "not an IPv4 address")
        }
        let fd = POSIX.streamSocket()
        guard fd >= 0 else { throw .bind(host: host, port: Int(port), reason: String(cString: strerror(errno))) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 128) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw .bind(host: host, port: Int(port), reason: reason)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.host = host
        self.port = UInt16(bigEndian: address.sin_port)
        self.limits = limits
        self.listener = fd
        self.handler = handler
    }

    deinit {
        let open = state.withLock { s in defer { s.listenerClosed = true }; return !s.listenerClosed }
        if open { close(listener) }
    }

    /// Starts the accept thread.
    package func start() {
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "http-accept"
        thread.start()
    }

    /// Open connections now.
    package var connectionCount: Int { state.withLock { $0.connections } }

    /// Stops accepting, lets running requests finish for up to `grace` seconds (idle
    /// connections close at once), then cancels what is left. Returns once every connection
    /// has closed (or one more second after cancelling).
    package func stop(grace: Double = 10) {
        state.withLock { s in
            s.stopping = true
            // Refuses new connections now; the accept thread closes the descriptor (closing it
            // here could hand its number to another socket while that thread still polls it).
            if !s.listenerClosed { shutdown(listener, Int32(SHUT_RDWR)) }
        }
        let deadline = ContinuousClock.now + .seconds(grace)
        while connectionCount > 0 && ContinuousClock.now < deadline { usleep(20_000) }
        state.withLock { $0.aborted = true }
        let hard = ContinuousClock.now + .seconds(1)
        while connectionCount > 0 && ContinuousClock.now < hard { usleep(20_000) }
        finished.signal()
    }

    /// Blocks until `stop` has finished.
    package func waitUntilStopped() {
        finished.wait()
        finished.signal()
    }

    private var stopping: Bool { state.withLock { $0.stopping } }
    private var aborted: Bool { state.withLock { $0.aborted } }

    private func acceptLoop() {
        while !stopping {
            var pfd = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, HTTPSocket.pollSlice) > 0 else { continue }
            let client = accept(listener, nil, nil)
            if client < 0 { continue }
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            let admitted = state.withLock { s in
                guard s.connections < limits.maxConnections else { return false }
                s.connections += 1
                return true
            }
            guard admitted else {
                let socket = HTTPSocket(fd: client)
                let body = Array(ServerError.shuttingDown.body.serialized.utf8)
                _ = socket.send(HTTPResponder.head(status: 503, headers: [("Content-Type", "application/json"),
                                                                          ("Content-Length", String(body.count))], close: true) + body)
                continue
            }
            let thread = Thread { [self] in
                serve(HTTPSocket(fd: client))
                state.withLock { $0.connections -= 1 }
            }
            thread.name = "http-connection"
            thread.stackSize = 1 << 20
            thread.start()
        }
        state.withLock { s in
            if !s.listenerClosed { close(listener) }
            s.listenerClosed = true
        }
    }

    /// Requests on one connection, until it closes, fails or the server stops.
    private func serve(_ socket: HTTPSocket) {
        let reader = HTTPRequestReader(socket: socket, limits: limits, stopping: { [self] in stopping })
        while true {
            let request: HTTPRequest
            do {
                guard let next = try reader.next(onContinue: { _ = socket.send(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)) }) else { return }
                request = next
            } catch {
                // A framing error leaves the stream unparseable: answer, then close.
                if error != .connectionClosed {
                    let responder = HTTPResponder(socket: socket, closeAfter: true, aborted: { false })
                    responder.send(status: error.status, body: Array(error.body.serialized.utf8))
                    socket.lingeringClose()
                }
                return
            }
            let responder = HTTPResponder(socket: socket, closeAfter: !request.keepAlive || stopping, headOnly: request.method == "HEAD",
                                          aborted: { [self] in aborted })
            handler.handle(request, responder)
            if responder.status == nil {
                let error = ServerError.modelFailed(model: "-", reason: "the handler sent no response")
                responder.send(status: 500, body: Array(error.body.serialized.utf8))
            }
            guard responder.reusable, !stopping else { return }
        }
    }
}
