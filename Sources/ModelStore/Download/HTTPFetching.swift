import Foundation

/// A GET request: URL and extra headers (Range, If-Range, Authorization).
package struct HTTPRequest: Sendable, Equatable {
    package var url: URL
    package var headers: [(name: String, value: String)]

    package init(url: URL, headers: [(name: String, value: String)] = []) {
        self.url = url
        self.headers = headers
    }

    package static func == (a: HTTPRequest, b: HTTPRequest) -> Bool {
        a.url == b.url && a.headers.map { "\($0.name): \($0.value)" } == b.headers.map { "\($0.name): \($0.value)" }
    }
}

/// Status line and headers of a response; header names are lowercased.
package struct HTTPResponseHead: Sendable, Equatable {
    package var status: Int
    package var headers: [String: String]
    /// Declared body length, when the response has one.
    package var contentLength: Int64? { headers["content-length"].flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) } }

    package init(status: Int, headers: [String: String]) {
        self.status = status
        self.headers = headers
    }
}

/// What a transport hands the body to. Calls arrive in order on one thread per request, which is
/// why the callbacks need no locking of their own.
package final class HTTPResponseHandler: @unchecked Sendable {
    /// Called once with the head; returning false ends the request without reading the body.
    let head: (HTTPResponseHead) throws(StoreError) -> Bool
    /// Called per body chunk; the buffer is only valid during the call.
    let body: (UnsafeRawBufferPointer) throws(StoreError) -> Void

    package init(head: @escaping (HTTPResponseHead) throws(StoreError) -> Bool,
                 body: @escaping (UnsafeRawBufferPointer) throws(StoreError) -> Void) {
        self.head = head
        self.body = body
    }
}

/// Performs one HTTP GET and streams its response. Does not follow redirects (the downloader does,
/// to read Hugging Face's `X-Linked-Etag` on the redirect and to drop the token across hosts).
package protocol HTTPFetching: Sendable {
    /// Returns when the body has been delivered in full. Throws `.stalled` when no byte arrives for
    /// `stallTimeout` seconds, `.connection` when the body ends before its Content-Length, and
    /// `.cancelled` when the task is cancelled.
    func get(_ request: HTTPRequest, stallTimeout: Double, handler: HTTPResponseHandler) async throws(StoreError)
}

/// Picks the transport by scheme: our socket client for `http://` (loopback mirrors, tests), where
/// it gives backpressure, exact stall detection and truncation checks; URLSession for `https://`,
/// which needs TLS.
package struct SchemeRoutingFetcher: HTTPFetching {
    package var plain: any HTTPFetching
    package var secure: any HTTPFetching

    package init(plain: any HTTPFetching = SocketHTTPClient(), secure: any HTTPFetching = URLSessionHTTPClient()) {
        self.plain = plain
        self.secure = secure
    }

    package func get(_ request: HTTPRequest, stallTimeout: Double, handler: HTTPResponseHandler) async throws(StoreError) {
        switch request.url.scheme?.lowercased() {
        case "http": try await plain.get(request, stallTimeout: stallTimeout, handler: handler)
        case "https": try await secure.get(request, stallTimeout: stallTimeout, handler: handler)
        default: throw .unsupportedURL(url: request.url.absoluteString)
        }
    }
}
