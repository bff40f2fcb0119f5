import Foundation

/// Reads requests off one connection under the server's limits.
///
/// Layout read (RFC 9112): a request line `METHOD SP target SP HTTP/1.x CRLF`, header lines
/// `name ":" OWS value OWS CRLF`, an empty line `CRLF`; then the body: exactly `Content-Length`
/// bytes, or with `Transfer-Encoding: chunked` a series of `hex-size [";" ext] CRLF data CRLF`
/// ended by a `0` chunk, optional trailer lines and `CRLF`. Line folding is refused, and so is a
/// request with both framings (a smuggling vector).
package struct HTTPRequestReader {
    let socket: HTTPSocket
    let limits: HTTPServer.Limits
    /// True once the server is stopping: an idle connection gives up at once.
    let stopping: () -> Bool

    package init(socket: HTTPSocket, limits: HTTPServer.Limits, stopping: @escaping () -> Bool) {
        self.socket = socket
        self.limits = limits
        self.stopping = stopping
    }

    /// The next request, or nil when the client closed (or stayed idle past the idle timeout, or
    /// the server is stopping) between requests. `onContinue` is called before reading a body
    /// the client announced with `Expect: 100-continue`.
    package func next(onContinue: () -> Void) throws(ServerError) -> HTTPRequest? {
        let idleDeadline = ContinuousClock.now + .seconds(limits.idleTimeout)
        while socket.pending.isEmpty {
            do {
                guard try socket.fill(until: idleDeadline, stage: "idle", seconds: limits.idleTimeout, abandon: stopping) else { return nil }
            } catch { return nil }
        }
        // The head must be complete within headTimeout of its first byte (slow-header clients).
        let headDeadline = ContinuousClock.now + .seconds(limits.headTimeout)
        var searched = 0
        var headEnd: Int?
        while true {
            if let end = Self.find([13, 10, 13, 10], in: socket.pending, from: searched) { headEnd = end; break }
            searched = max(0, socket.pending.count - 3)
            if socket.pending.count > limits.maxHeadBytes { throw .headersTooLarge(limit: limits.maxHeadBytes) }
            guard try socket.fill(until: headDeadline, stage: "head", seconds: limits.headTimeout, abandon: { false }) else {
                throw .connectionClosed
            }
        }
        guard let headEnd, headEnd <= limits.maxHeadBytes else { throw .headersTooLarge(limit: limits.maxHeadBytes) }
        var request = try parseHead(Array(socket.pending[0..<headEnd]))
        socket.pending.removeFirst(headEnd + 4)

        let encodings = request.headerValues("transfer-encoding")
        let lengths = request.headerValues("content-length")
        if !encodings.isEmpty && !lengths.isEmpty { throw .malformedRequest("both Transfer-Encoding and Content-Length") }
        let bodyDeadline = ContinuousClock.now + .seconds(limits.bodyTimeout)
        if !encodings.isEmpty {
            let te = encodings.joined(separator: ",").lowercased().trimmingCharacters(in: .whitespaces)
            guard te == "chunked" else { throw .unsupportedTransferEncoding(te) }
            if expectsContinue(request) { onContinue() }
            request.body = try readChunked(until: bodyDeadline)
        } else if !lengths.isEmpty {
            let distinct = Set(lengths.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) })
            guard distinct.count == 1, let text = distinct.first, !text.isEmpty, text.allSatisfy(\.isASCII),
                  text.allSatisfy(\.isNumber), text.count <= 18, let length = Int(text) else {
                throw .malformedRequest("bad Content-Length '\(lengths.joined(separator: ","))'")
            }
            guard length <= limits.maxBodyBytes else { throw .requestTooLarge(limit: limits.maxBodyBytes) }
            if expectsContinue(request) && length > 0 { onContinue() }
            request.body = try take(length, until: bodyDeadline)
        }
        return request
    }

    private func expectsContinue(_ request: HTTPRequest) -> Bool {
        request.version == "HTTP/1.1" && request.header("expect")?.lowercased() == "100-continue"
    }

    private func parseHead(_ bytes: [UInt8]) throws(ServerError) -> HTTPRequest {
        // Header bytes are ASCII in practice; anything else (obs-text) is kept as Latin-1 so a
        // stray byte cannot make the head unreadable.
        let text = String(bytes.map { Character(Unicode.Scalar($0)) })
        let lines = text.components(separatedBy: "\r\n")
        let parts = lines[0].split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[0].allSatisfy({ $0.isASCII && $0.isUppercase }) else {
            throw .malformedRequest("bad request line '\(lines[0].prefix(80))'")
        }
        let version = String(parts[2])
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else { throw .malformedRequest("unsupported version '\(version.prefix(16))'") }
        let target = String(parts[1])
        guard target.hasPrefix("/") else { throw .malformedRequest("request target must be a path") }
        guard lines.count - 1 <= limits.maxHeaderCount else { throw .headersTooLarge(limit: limits.maxHeadBytes) }
        var headers: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else {
                throw .malformedRequest("bad header line '\(line.prefix(80))'")
            }
            let name = line[..<colon]
            guard name.allSatisfy({ $0.isASCII && !$0.isWhitespace }), !line.hasPrefix(" "), !line.hasPrefix("\t") else {
                throw .malformedRequest("bad header name '\(name.prefix(80))'")
            }
            headers.append((name.lowercased(), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        let split = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        return HTTPRequest(method: String(parts[0]), path: String(split[0]), query: split.count > 1 ? String(split[1]) : nil,
                           version: version, headers: headers)
    }

    /// Exactly `count` body bytes.
    private func take(_ count: Int, until deadline: ContinuousClock.Instant) throws(ServerError) -> [UInt8] {
        while socket.pending.count < count {
            guard try socket.fill(until: deadline, stage: "body", seconds: limits.bodyTimeout, abandon: { false }) else {
                throw .connectionClosed
            }
        }
        let body = Array(socket.pending[0..<count])
        socket.pending.removeFirst(count)
        return body
    }

    /// One CRLF-terminated line (without the CRLF), at most `limit` bytes.
    private func line(limit: Int, until deadline: ContinuousClock.Instant) throws(ServerError) -> [UInt8] {
        var searched = 0
        while true {
            if let end = Self.find([13, 10], in: socket.pending, from: searched) {
                let line = Array(socket.pending[0..<end])
                socket.pending.removeFirst(end + 2)
                return line
            }
            if socket.pending.count > limit { throw .malformedRequest("chunk line over \(limit) bytes") }
            searched = max(0, socket.pending.count - 1)
            guard try socket.fill(until: deadline, stage: "body", seconds: limits.bodyTimeout, abandon: { false }) else {
                throw .connectionClosed
            }
        }
    }

    private func readChunked(until deadline: ContinuousClock.Instant) throws(ServerError) -> [UInt8] {
        var body: [UInt8] = []
        while true {
            let sizeLine = try line(limit: 1024, until: deadline)
            let hex = String(decoding: sizeLine.prefix { $0 != UInt8(ascii: ";") }, as: UTF8.self).trimmingCharacters(in: .whitespaces)
            guard !hex.isEmpty, hex.count <= 15, hex.allSatisfy(\.isHexDigit), let size = Int(hex, radix: 16) else {
                throw .malformedRequest("bad chunk size '\(hex.prefix(20))'")
            }
            if size == 0 { break }
            guard body.count + size <= limits.maxBodyBytes else { throw .requestTooLarge(limit: limits.maxBodyBytes) }
            body += try take(size, until: deadline)
            guard try line(limit: 2, until: deadline).isEmpty else { throw .malformedRequest("chunk data not followed by CRLF") }
        }
        var trailerBytes = 0
        while true {  // trailers are read and ignored
            let trailer = try line(limit: limits.maxHeadBytes, until: deadline)
            if trailer.isEmpty { return body }
            trailerBytes += trailer.count
            if trailerBytes > limits.maxHeadBytes { throw .headersTooLarge(limit: limits.maxHeadBytes) }
        }
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard haystack.count >= needle.count, start <= haystack.count - needle.count else { return nil }
        return haystack.withUnsafeBufferPointer { h in
            outer: for i in start...(h.count - needle.count) {
                for j in 0..<needle.count where h[i + j] != needle[j] { continue outer }
                return i
            }
            return nil
        }
    }
}
