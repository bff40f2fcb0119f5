#if canImport(Glibc)
import Glibc
import Platform
#elseif canImport(Darwin)
import Darwin
#endif
import Server

extension FuzzTarget {
    static let serverTargets: [FuzzTarget] = [
        FuzzTarget("http", "HTTP/1.1 requests off a socket: request line, headers, Content-Length and chunked bodies, "
                   + "pipelined requests", maxLength: 16 * 1024) { bytes in
            var fds: [Int32] = [0, 0]
            guard socketpair(AF_UNIX, POSIX.streamType, 0, &fds) == 0 else { fatalError("socketpair: \(errno)") }
            // The whole input fits the socket buffer (maxLength is far below it), then end of stream.
            var sent = 0
            while sent < bytes.count {
                let n = send(fds[1], bytes.baseAddress! + sent, bytes.count - sent, POSIX.noSignal)
                guard n > 0 else { break }
                sent += n
            }
            close(fds[1])
            var limits = HTTPServer.Limits()
            limits.maxHeadBytes = 2048
            limits.maxHeaderCount = 16
            limits.maxBodyBytes = 8192
            let reader = HTTPRequestReader(socket: HTTPSocket(fd: fds[0]), limits: limits, stopping: { false })
            for _ in 0..<64 {
                guard let request = try? reader.next(onContinue: {}) else { break }
                consume(request.header("content-type"))
            }
        },
        FuzzTarget("multipart", "multipart/form-data bodies: a Content-Type line (before the first zero byte) and the body",
                   maxLength: 8192) { bytes in
            let (head, body) = splitAtZero(bytes)
            let boundary = MultipartForm.boundary(contentType: String(decoding: head, as: UTF8.self)) ?? "b"
            guard let form = try? MultipartForm(body: body, boundary: boundary) else { return }
            for part in form.parts { consume((part.name, part.filename, part.contentType, part.body.count)) }
        },
    ]
}
