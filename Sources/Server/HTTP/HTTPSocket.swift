import Foundation
import Platform
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A connected client socket, owned by its connection thread (never shared), closed on deinit.
/// Reads are buffered; every wait polls in short slices so a server shutdown or a deadline is
/// noticed without a blocking `recv`.
package final class HTTPSocket {
    let fd: Int32
    /// Bytes received and not yet consumed by the request reader.
    var pending: [UInt8] = []
    private var scratch = [UInt8](repeating: 0, count: 64 * 1024)
    /// Milliseconds per poll: how late a shutdown or a deadline can be noticed.
    static let pollSlice: Int32 = 100

    package init(fd: Int32) {
        self.fd = fd
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        POSIX.suppressSIGPIPE(fd)
    }

    deinit { close(fd) }

    /// Receives more bytes into `pending`, waiting until `deadline`. Returns false at end of stream.
    /// Throws `.timedOut` past the deadline and `.connectionClosed` when `abandon()` says so.
    func fill(until deadline: ContinuousClock.Instant, stage: String, seconds: Double,
              abandon: () -> Bool) throws(ServerError) -> Bool {
        while true {
            if abandon() { throw .connectionClosed }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pfd, 1, HTTPSocket.pollSlice)
            if ready < 0 && errno != EINTR { throw .connectionClosed }
            if ready > 0 {
                let count = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, Int32(MSG_DONTWAIT)) }
                if count > 0 {
                    pending += scratch[0..<count]
                    return true
                }
                if count == 0 { return false }
                if errno != EAGAIN && errno != EINTR { throw .connectionClosed }
            }
            if ContinuousClock.now >= deadline { throw .timedOut(stage: stage, seconds: seconds) }
        }
    }

    /// Sends every byte; false when the peer is gone (EPIPE, reset) or `timeout` passes with
    /// the peer not reading.
    func send(_ bytes: [UInt8], timeout: Double = 30) -> Bool {
        let deadline = ContinuousClock.now + .seconds(timeout)
        var offset = 0
        while offset < bytes.count {
            // noSignal: a client that hung up must give EPIPE, not kill the server with SIGPIPE.
            let sent = bytes.withUnsafeBytes { POSIX.send(fd, $0.baseAddress! + offset, $0.count - offset, POSIX.noSignal | Int32(MSG_DONTWAIT)) }
            if sent > 0 { offset += sent; continue }
            guard sent < 0, errno == EAGAIN || errno == EINTR else { return false }
            var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            _ = poll(&pfd, 1, HTTPSocket.pollSlice)
            if ContinuousClock.now >= deadline { return false }
        }
        return true
    }

    /// Ends a connection the server refuses to read further (a framing error): stops sending,
    /// then reads and drops what the client is still sending for a moment, so the kernel does not
    /// answer those bytes with a reset that would destroy the error response in flight.
    func lingeringClose(seconds: Double = 2, maxBytes: Int = 8 << 20) {
        shutdown(fd, Int32(SHUT_WR))
        let deadline = ContinuousClock.now + .seconds(seconds)
        var drained = 0
        while drained < maxBytes && ContinuousClock.now < deadline {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, HTTPSocket.pollSlice) >= 0 else { return }
            guard pfd.revents != 0 else { continue }
            let count = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, Int32(MSG_DONTWAIT)) }
            if count == 0 || (count < 0 && errno != EAGAIN && errno != EINTR) { return }
            drained += max(0, count)
        }
    }

    /// Whether the peer has closed or reset the connection. Bytes it sent ahead (a pipelined
    /// request) are read into `pending`, so they are not mistaken for a hang-up nor lost.
    func peerClosed() -> Bool {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&pfd, 1, 0) > 0 else { return false }
        if pfd.revents & Int16(POLLHUP | POLLERR) != 0 { return true }
        if pending.count > 1 << 20 { return false }  // a client pipelining this much can wait
        let count = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, Int32(MSG_DONTWAIT)) }
        if count > 0 { pending += scratch[0..<count]; return false }
        return count == 0 || (errno != EAGAIN && errno != EINTR)
    }
}
