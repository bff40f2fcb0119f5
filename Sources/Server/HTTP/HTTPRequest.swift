import Foundation

/// One HTTP request as read off the wire: header names lowercased, the body de-chunked.
package struct HTTPRequest: Sendable, Equatable {
    package var method: String
    /// The request target's path, without the query.
    package var path: String
    package var query: String?
    /// HTTP/1.0 or HTTP/1.1: decides the keep-alive default.
    package var version: String
    /// Headers in arrival order, names lowercased.
    package var headers: [(name: String, value: String)]
    package var body: [UInt8]

    package init(method: String, path: String, query: String? = nil, version: String = "HTTP/1.1",
                 headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.method = method
        self.path = path
        self.query = query
        self.version = version
        self.headers = headers
        self.body = body
    }

    /// The first header named `name` (lowercase).
    package func header(_ name: String) -> String? { headers.first { $0.name == name }?.value }

    /// Every value of `name`, in order.
    package func headerValues(_ name: String) -> [String] { headers.filter { $0.name == name }.map(\.value) }

    /// Whether the client wants the connection kept after this exchange (RFC 9112 §9.3).
    package var keepAlive: Bool {
        let tokens = headerValues("connection").flatMap { $0.lowercased().split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces) }
        if tokens.contains("close") { return false }
        return version == "HTTP/1.1" || tokens.contains("keep-alive")
    }

    /// The media type of the body, lowercased, without parameters.
    package var mediaType: String? {
        header("content-type").map { String($0.split(separator: ";").first ?? "").trimmingCharacters(in: .whitespaces).lowercased() }
    }

    package static func == (a: HTTPRequest, b: HTTPRequest) -> Bool {
        a.method == b.method && a.path == b.path && a.query == b.query && a.version == b.version
            && a.headers.map(\.name) == b.headers.map(\.name) && a.headers.map(\.value) == b.headers.map(\.value)
            && a.body == b.body
    }
}
