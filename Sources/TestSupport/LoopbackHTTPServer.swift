import Foundation
import Platform
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An HTTP/1.1 file server on 127.0.0.1 (ephemeral port) for store tests, with scripted faults.
///
/// Serves registered byte arrays with `Range: bytes=N-` (206) and `If-Range`, one request per
/// connection. Faults queued for a path apply to its next requests in order. Counts the body bytes
/// it actually sent, so tests can prove a resume did not re-download what was already received.
/// Each connection runs on its own thread; shared state sits behind a lock.
package final class LoopbackHTTPServer: Sendable {
    /// Misbehaviour for one request.
    package enum Fault: Sendable, Equatable {
        /// Sends the head and this many body bytes, then closes.
        case dropAfter(bytes: Int)
        /// Replies with this status and no body (e.g. 500, 503, 429), optionally with Retry-After.
        case status(Int, retryAfter: String? = nil)
        /// Replies 200 with the whole body even when a Range was asked.
        case ignoreRange
        /// Declares the full Content-Length but sends only this many bytes, then closes.
        case truncate(bytes: Int)
        /// Sends the right length of the wrong bytes.
        case wrongBytes
        /// Sends this many body bytes, then goes silent for `seconds` (or until stopped), then closes.
        case stall(afterBytes: Int, seconds: Double)
        /// Replies 302 to another path, adding these headers (e.g. X-Linked-Etag).
        case redirect(to: String, headers: [String: String] = [:])
    }

    /// A request as the server saw it; header names lowercased.
    package struct Request: Sendable, Equatable {
        package var path: String
        package var headers: [String: String]
    }

    private struct Resource {
        var body: [UInt8]
        var headers: [String: String]
    }

    private struct State {
        var resources = [String: Resource]()
        var faults = [String: [Fault]]()
        var bytesSent = [String: Int]()
        var requests = [Request]()
        var stopped = false
    }

    private let listener: Int32
    /// The bound port on 127.0.0.1.
    package let port: UInt16
    private let state = Locked(State())

    package var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    package init() throws {
        let fd = POSIX.streamSocket()
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 64) == 0 else { close(fd); throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    deinit { stop() }

    /// Serves `body` at `path` (e.g. `/org/repo/resolve/main/model.gguf`) with extra headers.
    package func serve(path: String, body: [UInt8], headers: [String: String] = [:]) {
        state.withLock { $0.resources[path] = Resource(body: body, headers: headers) }
    }

    /// Queues faults for the next requests of `path`, first one first.
    package func inject(_ faults: [Fault], for path: String) {
        state.withLock { $0.faults[path, default: []] += faults }
    }

    /// Body bytes written to sockets for `path` so far.
    package func bytesSent(for path: String) -> Int { state.withLock { $0.bytesSent[path] ?? 0 } }

    /// Requests received for `path`, in arrival order.
    package func requests(for path: String) -> [Request] { state.withLock { $0.requests.filter { $0.path == path } } }

    package func stop() {
        let wasStopped = state.withLock { s in defer { s.stopped = true }; return s.stopped }
        guard !wasStopped else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private var isStopped: Bool { state.withLock { $0.stopped } }

    private func acceptLoop() {
        while !isStopped {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            POSIX.suppressSIGPIPE(client)
            let thread = Thread { [self] in
                handle(client)
                close(client)
            }
            thread.start()
        }
    }

    private func handle(_ fd: Int32) {
        guard let (path, headers) = readRequest(fd) else { return }
        let (resource, fault) = state.withLock { s -> (Resource?, Fault?) in
            s.requests.append(Request(path: path, headers: headers))
            let fault = s.faults[path]?.isEmpty == false ? s.faults[path]!.removeFirst() : nil
            return (s.resources[path], fault)
        }
        switch fault {
        case .status(let code, let retryAfter):
            var extra = ["Content-Length": "0"]
            if let retryAfter { extra["Retry-After"] = retryAfter }
            _ = sendAll(fd, Array(head(code, extra).utf8))
            return
        case .redirect(let target, let redirectHeaders):
            _ = sendAll(fd, Array(head(302, redirectHeaders.merging(["Location": target, "Content-Length": "0"]) { a, _ in a }).utf8))
            return
        default:
            break
        }
        guard let resource else {
            _ = sendAll(fd, Array(head(404, ["Content-Length": "0"]).utf8))
            return
        }
        var body = resource.body
        if fault == .wrongBytes { body = body.map { $0 ^ 0x5a } }
        var start = 0
        if fault != .ignoreRange, let range = headers["range"], range.hasPrefix("bytes="),
           let from = Int(range.dropFirst(6).split(separator: "-").first ?? ""),
           headers["if-range"].map({ $0 == resource.headers["ETag"] }) ?? true {
            guard from < body.count else {
                _ = sendAll(fd, Array(head(416, ["Content-Range": "bytes */\(body.count)", "Content-Length": "0"]).utf8))
                return
            }
            start = from
        }
        var responseHeaders = resource.headers
        responseHeaders["Content-Length"] = String(body.count - start)
        if start > 0 { responseHeaders["Content-Range"] = "bytes \(start)-\(body.count - 1)/\(body.count)" }
        guard sendAll(fd, Array(head(start > 0 ? 206 : 200, responseHeaders).utf8)) else { return }
        var end = body.count
        switch fault {
        case .dropAfter(let bytes), .truncate(let bytes): end = min(end, start + bytes)
        case .stall(let bytes, _): end = min(end, start + bytes)
        default: break
        }
        sendBody(fd, body, from: start, to: end, path: path)
        if case .stall(_, let seconds) = fault {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline && !isStopped && !peerClosed(fd) { usleep(10_000) }
        }
    }

    private func sendBody(_ fd: Int32, _ body: [UInt8], from start: Int, to end: Int, path: String) {
        var offset = start
        while offset < end {
            let count = min(64 * 1024, end - offset)
            let sent = body.withUnsafeBytes { send(fd, $0.baseAddress! + offset, count, POSIX.noSignal) }
            if sent <= 0 { return }
            offset += sent
            state.withLock { $0.bytesSent[path, default: 0] += sent }
        }
    }

    private func head(_ status: Int, _ headers: [String: String]) -> String {
        var text = "HTTP/1.1 \(status) \(status < 300 ? "OK" : "Status")\r\nConnection: close\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { text += "\(name): \(value)\r\n" }
        return text + "\r\n"
    }

    private func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, $0.count - offset, POSIX.noSignal) }
            if sent <= 0 { return false }
            offset += sent
        }
        return true
    }

    private func peerClosed(_ fd: Int32) -> Bool {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&pfd, 1, 0) > 0 else { return false }
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT)) == 0
    }

    // Request head: `GET SP path SP HTTP/1.1 CRLF`, header lines, empty line. Bodies are not read.
    private func readRequest(_ fd: Int32) -> (String, [String: String])? {
        var data = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while data.count < 64 * 1024 {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
            if count <= 0 { return nil }
            data += buffer[0..<count]
            guard let text = String(bytes: data, encoding: .utf8), let end = text.range(of: "\r\n\r\n") else { continue }
            let lines = text[..<end.lowerBound].components(separatedBy: "\r\n")
            let parts = lines[0].split(separator: " ")
            guard parts.count >= 2 else { return nil }
            var headers = [String: String]()
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            let target = String(parts[1])
            return (target.removingPercentEncoding ?? target, headers)
        }
        return nil
    }
}
