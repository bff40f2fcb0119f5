import Foundation

/// How a handler answers one request: a whole response (`send`), or a stream (`startStream`,
/// `write`…, `finishStream`) sent with chunked transfer coding so the connection stays usable
/// afterwards. Used on the request's connection thread only.
package final class HTTPResponder {
    private let socket: HTTPSocket
    /// Whether this response ends the connection (client asked, or the server is stopping).
    let closeAfter: Bool
    private let aborted: () -> Bool
    /// The request was HEAD: a whole response sends its head (with the body's length) alone.
    private let headOnly: Bool
    package private(set) var status: Int?
    private var streaming = false
    /// The client stopped reading or hung up: further writes are dropped.
    package private(set) var failed = false

    init(socket: HTTPSocket, closeAfter: Bool, headOnly: Bool = false, aborted: @escaping () -> Bool) {
        self.socket = socket
        self.closeAfter = closeAfter
        self.headOnly = headOnly
        self.aborted = aborted
    }

    /// True once the client has hung up, a write failed, or the server's grace period for
    /// shutdown is over: the handler should stop its work (cancel generation).
    package var isCancelled: Bool {
        if failed || aborted() { return true }
        if socket.peerClosed() { failed = true }
        return failed
    }

    /// Sends a whole response.
    package func send(status: Int, contentType: String = "application/json", body: [UInt8], headers: [(String, String)] = []) {
        precondition(self.status == nil, "one response per request")
        self.status = status
        var head = Self.head(status: status, headers: headers + [("Content-Type", contentType), ("Content-Length", String(body.count))], close: closeAfter)
        // A body after a HEAD response would be read as the next response on a kept-alive connection.
        if !headOnly { head += body }
        if !socket.send(head) { failed = true }
    }

    /// Sends a JSON document.
    package func send(status: Int = 200, json: String) {
        send(status: status, body: Array(json.utf8))
    }

    /// Starts a chunked response (server-sent events by default).
    package func startStream(status: Int = 200, contentType: String = "text/event-stream") {
        precondition(self.status == nil, "one response per request")
        self.status = status
        streaming = true
        let head = Self.head(status: status, headers: [("Content-Type", contentType), ("Cache-Control", "no-cache"),
                                                       ("Transfer-Encoding", "chunked")], close: closeAfter)
        if !socket.send(head) { failed = true }
    }

    /// One chunk of the stream; false once the client is gone.
    @discardableResult
    package func write(_ bytes: [UInt8]) -> Bool {
        precondition(streaming, "write needs startStream")
        guard !failed, !bytes.isEmpty else { return !failed }
        let chunk = Array(String(bytes.count, radix: 16).utf8) + [13, 10] + bytes + [13, 10]
        if !socket.send(chunk) { failed = true }
        return !failed
    }

    /// One server-sent event: `data: <text>` and a blank line.
    @discardableResult
    package func event(_ data: String) -> Bool { write(Array("data: \(data)\n\n".utf8)) }

    /// Ends the stream with the zero-length chunk.
    package func finishStream() {
        precondition(streaming, "finishStream needs startStream")
        streaming = false
        if !failed, !socket.send([48, 13, 10, 13, 10]) { failed = true }
    }

    /// The connection can carry another request after this one.
    var reusable: Bool { !closeAfter && !failed && !streaming && status != nil }

    static func head(status: Int, headers: [(String, String)], close: Bool) -> [UInt8] {
        var text = "HTTP/1.1 \(status) \(reason(status))\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        text += close ? "Connection: close\r\n\r\n" : "Connection: keep-alive\r\n\r\n"
        return Array(text.utf8)
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 200: "OK"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 413: "Content Too Large"
        case 415: "Unsupported Media Type"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }
}
