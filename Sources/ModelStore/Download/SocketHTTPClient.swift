import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small HTTP/1.1 client over POSIX sockets for `http://` URLs: one request per connection
/// (`Connection: close`), Content-Length, chunked and read-to-close bodies.
///
/// Why our own: on Linux, FoundationNetworking's URLSession buffers without backpressure and its
/// idle timeout and truncation reporting come from libcurl; here every read waits in `poll` with a
/// short slice, so a stall is measured to the slice, cancellation is seen within it, and a body
/// shorter than its Content-Length is always an error. Each request runs on its own thread because
/// its I/O blocks, and the cooperative pool has only as many threads as cores.
package struct SocketHTTPClient: HTTPFetching {
    package init() {}

    package func get(_ request: HTTPRequest, stallTimeout: Double, handler: HTTPResponseHandler) async throws(StoreError) {
        let cancelled = CancellationFlag()
        let result: Result<Void, StoreError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let thread = Thread {
                    let exchange = SocketExchange(request: request, stallTimeout: stallTimeout, cancelled: cancelled)
                    continuation.resume(returning: Result { () throws(StoreError) in try exchange.run(handler) })
                }
                thread.start()
            }
        } onCancel: {
            cancelled.set()
        }
        try result.get()
    }
}

/// Set once from any thread when the awaiting task is cancelled; polled by the I/O loop.
package final class CancellationFlag: Sendable {
    private let value = Atomic<Bool>(false)
    package init() {}
    package func set() { value.store(true, ordering: .relaxed) }
    package var isSet: Bool { value.load(ordering: .relaxed) }
}

/// One request/response over one connection, run synchronously on a dedicated thread.
struct SocketExchange {
    let request: HTTPRequest
    let stallTimeout: Double
    let cancelled: CancellationFlag

    private var urlText: String { request.url.absoluteString }

    func run(_ handler: HTTPResponseHandler) throws(StoreError) {
        guard let host = request.url.host, !host.isEmpty else { throw .unsupportedURL(url: urlText) }
        let port = request.url.port ?? 80
        let socket = try SocketConnection.connect(host: host, port: port, timeout: stallTimeout, cancelled: cancelled, url: urlText)
        try socket.sendAll(Array(requestText(host: host, port: port).utf8), timeout: stallTimeout, cancelled: cancelled)
        var reader = SocketReader(socket: socket, stallTimeout: stallTimeout, cancelled: cancelled, url: urlText)
        let (head, leftover) = try reader.readHead()
        guard try handler.head(head) else { return }
        if head.status == 204 || head.status == 304 || (100..<200).contains(head.status) { return }
        if head.headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
            var decoder = ChunkedDecoder()
            var pending = leftover
            while true {
                let done = try decoder.feed(pending, url: urlText) { slice throws(StoreError) in try handler.body(slice) }
                if done { return }
                pending = try reader.readChunk()
                if pending.isEmpty { throw .connection(url: urlText, reason: "chunked body ended early") }
            }
        }
        let expected = head.contentLength
        var received: Int64 = 0
        // Body bytes go to the handler straight from the receive buffer; anything past the
        // Content-Length is dropped.
        func take(_ raw: UnsafeRawBufferPointer) throws(StoreError) {
            var raw = raw
            if let expected, received + Int64(raw.count) > expected { raw = UnsafeRawBufferPointer(rebasing: raw[0..<Int(expected - received)]) }
            guard !raw.isEmpty else { return }
            try handler.body(raw)
            received += Int64(raw.count)
        }
        try leftover.withBytes { (raw: UnsafeRawBufferPointer) throws(StoreError) in try take(raw) }
        while expected.map({ received < $0 }) ?? true {
            let count = try reader.read { (raw: UnsafeRawBufferPointer) throws(StoreError) in try take(raw) }
            if count == 0 {
                guard let expected else { return }
                throw .connection(url: urlText, reason: "body ended after \(received) of \(expected) bytes")
            }
        }
    }

    private func requestText(host: String, port: Int) -> String {
        // The URL's own percent-encoded form: `url.path` would be decoded and lose `%2F`, `%3F`.
        let components = URLComponents(url: request.url, resolvingAgainstBaseURL: true)
        var target = components?.percentEncodedPath ?? "/"
        if target.isEmpty { target = "/" }
        if let query = components?.percentEncodedQuery { target += "?" + query }
        var text = "GET \(target) HTTP/1.1\r\nHost: \(host)\(port == 80 ? "" : ":\(port)")\r\n"
        text += "User-Agent: ondevice\r\nAccept-Encoding: identity\r\nConnection: close\r\n"
        for header in request.headers { text += "\(header.name): \(header.value)\r\n" }
        return text + "\r\n"
    }
}
