import Foundation
import Platform
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Owner of a connected TCP socket; closes it on deinit. Used by one thread at a time.
final class SocketConnection {
    let fd: Int32
    let url: String
    /// Granularity of every wait: how late a cancellation or a stall can be noticed.
    static let pollSlice: Int32 = 50

    private init(fd: Int32, url: String) {
        self.fd = fd
        self.url = url
    }

    deinit { close(fd) }

    static func connect(host: String, port: Int, timeout: Double, cancelled: CancellationFlag, url: String) throws(StoreError) -> SocketConnection {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = POSIX.streamType
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw .connection(url: url, reason: "cannot resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(first) }
        var lastReason = "no address"
        var node: UnsafeMutablePointer<addrinfo>? = first
        while let info = node {
            node = info.pointee.ai_next
            let fd = POSIX.streamSocket(family: info.pointee.ai_family, nonBlocking: true)
            guard fd >= 0 else { lastReason = String(cString: strerror(errno)); continue }
            let connection = SocketConnection(fd: fd, url: url)
            if POSIX.connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 { return connection }
            guard errno == EINPROGRESS else { lastReason = String(cString: strerror(errno)); continue }
            guard try connection.wait(for: Int16(POLLOUT), timeout: timeout, cancelled: cancelled) else {
                lastReason = "connect timed out"; continue
            }
            var soError: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &length)
            if soError == 0 { return connection }
            lastReason = String(cString: strerror(soError))
        }
        throw .connection(url: url, reason: lastReason)
    }

    /// Waits until `events` is ready; false when `timeout` seconds pass first.
    func wait(for events: Int16, timeout: Double, cancelled: CancellationFlag) throws(StoreError) -> Bool {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while true {
            if cancelled.isSet { throw .cancelled }
            var pfd = pollfd(fd: fd, events: events, revents: 0)
            let ready = poll(&pfd, 1, SocketConnection.pollSlice)
            if ready > 0 { return true }
            if ready < 0 && errno != EINTR { throw .connection(url: url, reason: String(cString: strerror(errno))) }
            if ContinuousClock.now >= deadline { return false }
        }
    }

    func sendAll(_ bytes: [UInt8], timeout: Double, cancelled: CancellationFlag) throws(StoreError) {
        var offset = 0
        while offset < bytes.count {
            guard try wait(for: Int16(POLLOUT), timeout: timeout, cancelled: cancelled) else {
                throw .stalled(url: url, seconds: timeout)
            }
            // noSignal: a peer that closed must give EPIPE, not kill the process with SIGPIPE.
            let sent = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, $0.count - offset, POSIX.noSignal) }
            if sent < 0 {
                if errno == EAGAIN || errno == EINTR { continue }
                throw .connection(url: url, reason: String(cString: strerror(errno)))
            }
            offset += sent
        }
    }
}

/// Reads a response from a socket: the head, then body bytes as they arrive.
struct SocketReader {
    let socket: SocketConnection
    let stallTimeout: Double
    let cancelled: CancellationFlag
    let url: String
    private var buffer = [UInt8](repeating: 0, count: 256 * 1024)

    init(socket: SocketConnection, stallTimeout: Double, cancelled: CancellationFlag, url: String) {
        self.socket = socket
        self.stallTimeout = stallTimeout
        self.cancelled = cancelled
        self.url = url
    }

    /// Next bytes from the peer; empty at end of stream. Throws `.stalled` after `stallTimeout`
    /// seconds without a byte.
    mutating func readChunk() throws(StoreError) -> [UInt8] {
        var chunk: [UInt8] = []
        _ = try read { chunk = Array($0) }
        return chunk
    }

    /// Receives the next bytes into the reader's buffer and hands them to `body` (valid only
    /// during the call), without copying them; returns their count, 0 at end of stream. Reads
    /// first and waits in `poll` only when nothing is there, so a fast peer costs one syscall
    /// per chunk; cancellation is checked on every read. Throws `.stalled` after
    /// `stallTimeout` seconds without a byte.
    mutating func read(_ body: (UnsafeRawBufferPointer) throws(StoreError) -> Void) throws(StoreError) -> Int {
        let fd = socket.fd
        while true {
            if cancelled.isSet { throw .cancelled }
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, Int32(MSG_DONTWAIT)) }
            if count >= 0 {
                try buffer.withBytes { (raw: UnsafeRawBufferPointer) throws(StoreError) in try body(UnsafeRawBufferPointer(rebasing: raw[0..<count])) }
                return count
            }
            if errno == EINTR { continue }
            guard errno == EAGAIN || errno == EWOULDBLOCK else { throw .connection(url: url, reason: String(cString: strerror(errno))) }
            guard try socket.wait(for: Int16(POLLIN), timeout: stallTimeout, cancelled: cancelled) else {
                throw .stalled(url: url, seconds: stallTimeout)
            }
        }
    }

    // Head layout (RFC 9112): `HTTP/1.x SP status SP reason CRLF`, then `name: value CRLF` lines,
    // then an empty line. Returns the head and any body bytes read past it.
    mutating func readHead() throws(StoreError) -> (HTTPResponseHead, [UInt8]) {
        var data = [UInt8]()
        while true {
            let chunk = try readChunk()
            if chunk.isEmpty { throw .connection(url: url, reason: "connection closed before the response head") }
            let searchFrom = max(0, data.count - 3)
            data += chunk
            if let end = SocketReader.headEnd(in: data, from: searchFrom) {
                let head = try parseHead(Array(data[0..<end]))
                return (head, Array(data[(end + 4)...]))
            }
            if data.count > 64 * 1024 { throw .connection(url: url, reason: "response head over 64 KiB") }
        }
    }

    private static func headEnd(in data: [UInt8], from start: Int) -> Int? {
        guard data.count >= 4 else { return nil }
        for i in start...(data.count - 4) where data[i] == 13 && data[i + 1] == 10 && data[i + 2] == 13 && data[i + 3] == 10 {
            return i
        }
        return nil
    }

    private func parseHead(_ bytes: [UInt8]) throws(StoreError) -> HTTPResponseHead {
        let lines = String(decoding: bytes, as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ", maxSplits: 2)
        guard statusParts.count >= 2, statusParts[0].hasPrefix("HTTP/1."), let status = Int(statusParts[1]) else {
            throw .connection(url: url, reason: "bad status line '\(lines[0].prefix(80))'")
        }
        var headers = [String: String]()
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers[name] = headers[name].map { "\($0), \(value)" } ?? value
        }
        return HTTPResponseHead(status: status, headers: headers)
    }
}
