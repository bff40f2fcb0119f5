import Foundation
import Platform
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A minimal blocking HTTP/1.1 client for 127.0.0.1, for the load test and the server's own
/// tests: raw bytes out (so tests can send anything), one response back, keep-alive kept.
package final class LoopbackClient {
    package struct Response: Sendable {
        package var status: Int
        package var headers: [String: String]
        package var body: [UInt8]
        package var text: String { String(decoding: body, as: UTF8.self) }
    }

    private let socket: HTTPSocket
    package let timeout: Double

    package init(port: UInt16, timeout: Double = 120) throws(ServerError) {
        let fd = POSIX.streamSocket()
        guard fd >= 0 else { throw .bind(host: "127.0.0.1", port: Int(port), reason: String(cString: strerror(errno))) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw .bind(host: "127.0.0.1", port: Int(port), reason: reason)
        }
        socket = HTTPSocket(fd: fd)
        self.timeout = timeout
    }

    /// Sends raw bytes; false when the server has closed.
    @discardableResult
    package func send(_ bytes: [UInt8]) -> Bool { socket.send(bytes) }

    /// A request with a Content-Length body.
    package func request(_ method: String, _ path: String, body: [UInt8] = [], headers: [String: String] = [:]) throws(ServerError) -> Response {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(body.count)\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
        guard send(Array((head + "\r\n").utf8) + body) else { throw .connectionClosed }
        return try readResponse()
    }

    /// A JSON POST.
    package func post(_ path: String, json: String, headers: [String: String] = [:]) throws(ServerError) -> Response {
        try request("POST", path, body: Array(json.utf8), headers: headers.merging(["Content-Type": "application/json"]) { a, _ in a })
    }

    /// Whether the server has closed the connection (waits up to `seconds` for the close).
    package func isClosedByServer(within seconds: Double) -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        do {
            while true {
                guard try socket.fill(until: deadline, stage: "close", seconds: seconds, abandon: { false }) else { return true }
            }
        } catch {
            return error == .connectionClosed
        }
    }

    /// Closes the connection in both directions, as a client that gives up does.
    package func hangUp() { shutdown(socket.fd, Int32(SHUT_RDWR)) }

    /// The next response: head, then a Content-Length or chunked body (or to the close).
    package func readResponse() throws(ServerError) -> Response {
        var response = try readHead()
        if response.status == 100 { return try readResponse() }
        response.body = try readBody(response.headers, until: ContinuousClock.now + .seconds(timeout))
        return response
    }

    /// The status line and headers of the next response (header names lowercased).
    package func readHead() throws(ServerError) -> Response {
        let deadline = ContinuousClock.now + .seconds(timeout)
        var headEnd: Int?
        while true {
            headEnd = HTTPRequestReader.find([13, 10, 13, 10], in: socket.pending, from: 0)
            if headEnd != nil { break }
            guard try socket.fill(until: deadline, stage: "response", seconds: timeout, abandon: { false }) else { throw .connectionClosed }
        }
        let end = headEnd ?? 0
        let lines = String(decoding: socket.pending[0..<end], as: UTF8.self).components(separatedBy: "\r\n")
        socket.pending.removeFirst(end + 4)
        let parts = lines[0].split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else { throw .malformedRequest("bad status line \(lines[0])") }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Response(status: status, headers: headers, body: [])
    }

    /// The body of a response whose head `readHead` returned.
    package func readRemainder(of head: Response) throws(ServerError) -> Response {
        var response = head
        response.body = try readBody(head.headers, until: ContinuousClock.now + .seconds(timeout))
        return response
    }

    /// Reads a chunked (streamed) body as it arrives: `onChunk` gets each chunk's bytes the
    /// moment it is complete. Returns at the last chunk.
    package func readChunks(_ onChunk: ([UInt8]) -> Void) throws(ServerError) {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while true {
            let sizeLine = try line(until: deadline)
            guard let size = Int(sizeLine.split(separator: ";").first ?? "", radix: 16) else { throw .malformedRequest("bad chunk size") }
            if size == 0 { _ = try line(until: deadline); return }
            let chunk = try take(size, until: deadline)
            _ = try take(2, until: deadline)
            onChunk(chunk)
        }
    }

    private func readBody(_ headers: [String: String], until deadline: ContinuousClock.Instant) throws(ServerError) -> [UInt8] {
        var body: [UInt8] = []
        if headers["transfer-encoding"] == "chunked" {
            while true {
                let sizeLine = try line(until: deadline)
                guard let size = Int(sizeLine.split(separator: ";").first ?? "", radix: 16) else { throw .malformedRequest("bad chunk size") }
                if size == 0 { _ = try self.line(until: deadline); break }
                body += try take(size, until: deadline)
                _ = try take(2, until: deadline)
            }
        } else if let length = headers["content-length"].flatMap(Int.init) {
            body = try take(length, until: deadline)
        } else {
            while (try? socket.fill(until: deadline, stage: "body", seconds: timeout, abandon: { false })) == true {}
            body = socket.pending
            socket.pending = []
        }
        return body
    }

    private func take(_ count: Int, until deadline: ContinuousClock.Instant) throws(ServerError) -> [UInt8] {
        while socket.pending.count < count {
            guard try socket.fill(until: deadline, stage: "body", seconds: timeout, abandon: { false }) else { throw .connectionClosed }
        }
        defer { socket.pending.removeFirst(count) }
        return Array(socket.pending[0..<count])
    }

    private func line(until deadline: ContinuousClock.Instant) throws(ServerError) -> String {
        while true {
            if let end = HTTPRequestReader.find([13, 10], in: socket.pending, from: 0) {
                defer { socket.pending.removeFirst(end + 2) }
                return String(decoding: socket.pending[0..<end], as: UTF8.self)
            }
            guard try socket.fill(until: deadline, stage: "body", seconds: timeout, abandon: { false }) else { throw .connectionClosed }
        }
    }
}
