import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Platform

/// `https://` transport over FoundationNetworking's URLSession (TLS comes from libcurl on Linux).
///
/// Streams through a data delegate on a serial queue; redirects are handed back to the caller
/// rather than followed. `timeoutIntervalForRequest` is URLSession's idle timeout, which is the
/// stall timeout we want. URLSession gives no backpressure: bytes go to disk inside the callback,
/// so memory stays bounded by what libcurl has buffered.
package struct URLSessionHTTPClient: HTTPFetching {
    package init() {}

    package func get(_ request: HTTPRequest, stallTimeout: Double, handler: HTTPResponseHandler) async throws(StoreError) {
        let delegate = StreamingDelegate(handler: handler, url: request.url.absoluteString, stallTimeout: stallTimeout)
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = stallTimeout
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
        defer { session.finishTasksAndInvalidate() }
        var urlRequest = URLRequest(url: request.url)
        urlRequest.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        for header in request.headers { urlRequest.setValue(header.value, forHTTPHeaderField: header.name) }
        let task = session.dataTask(with: urlRequest)
        let result: Result<Void, StoreError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                delegate.start(continuation)
                task.resume()
            }
        } onCancel: {
            delegate.cancelledByCaller()
            task.cancel()
        }
        try result.get()
    }
}

/// Delegate for one task. `@unchecked Sendable`: URLSession calls it on a serial queue, and the
/// only state touched from elsewhere (cancellation) sits behind a lock.
private final class StreamingDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private struct State {
        var continuation: CheckedContinuation<Result<Void, StoreError>, Never>?
        var failure: StoreError?
        var expected: Int64?
        var received: Int64 = 0
    }
    private let handler: HTTPResponseHandler
    private let url: String
    private let stallTimeout: Double
    private let state = Locked(State())

    init(handler: HTTPResponseHandler, url: String, stallTimeout: Double) {
        self.handler = handler
        self.url = url
        self.stallTimeout = stallTimeout
    }

    func start(_ continuation: CheckedContinuation<Result<Void, StoreError>, Never>) {
        state.withLock { $0.continuation = continuation }
    }

    func cancelledByCaller() { state.withLock { if $0.failure == nil { $0.failure = .cancelled } } }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        completionHandler(nil)  // deliver the 3xx itself; the downloader follows it
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        guard let http = response as? HTTPURLResponse else { completionHandler(.cancel); return }
        var headers = [String: String]()
        for (key, value) in http.allHeaderFields {
            if let key = key as? String, let value = value as? String { headers[key.lowercased()] = value }
        }
        let head = HTTPResponseHead(status: http.statusCode, headers: headers)
        state.withLock { $0.expected = head.contentLength }
        do throws(StoreError) {
            completionHandler(try handler.head(head) ? .allow : .cancel)
        } catch {
            state.withLock { $0.failure = error }
            completionHandler(.cancel)
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard state.withLock({ $0.failure == nil }) else { return }
        do throws(StoreError) {
            try data.withBytes { (raw: UnsafeRawBufferPointer) throws(StoreError) in try handler.body(raw) }
            state.withLock { $0.received += Int64(data.count) }
        } catch {
            state.withLock { $0.failure = error }
            dataTask.cancel()
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        let result: Result<Void, StoreError> = state.withLock { s in
            if let failure = s.failure { return .failure(failure) }
            if let error = error as? URLError {
                if error.code == .timedOut { return .failure(.stalled(url: url, seconds: stallTimeout)) }
                if error.code == .cancelled { return .success(()) }  // we declined the body
                return .failure(.connection(url: url, reason: error.localizedDescription))
            }
            if let error { return .failure(.connection(url: url, reason: "\(error)")) }
            if let expected = s.expected, s.received < expected, s.received > 0 || expected > 0 {
                // Only a body we accepted counts; a declined one reports nothing received.
                return .failure(.connection(url: url, reason: "body ended after \(s.received) of \(expected) bytes"))
            }
            return .success(())
        }
        let continuation = state.withLock { s in defer { s.continuation = nil }; return s.continuation }
        continuation?.resume(returning: result)
    }
}
