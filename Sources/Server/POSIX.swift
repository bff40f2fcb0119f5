#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The socket calls whose spelling differs between Linux and Apple platforms, so the server is
/// written once. Behaviour choices test `os(Linux) && !ONDEVICE_PORTABLE_CHECK`: the check flag
/// sends Linux down the other branch, which uses only names Glibc shares with Darwin, so
/// scripts/check-portable.sh compiles it here. Spelling differences (a C enum here, a plain
/// Int32 there) cannot take that branch on Linux and test the import.
enum POSIX {
    /// `SOCK_STREAM` as `socket()` takes it: a C enum in Glibc, an Int32 in Darwin.
    static var streamType: Int32 {
        #if canImport(Darwin)
        SOCK_STREAM
        #else
        Int32(SOCK_STREAM.rawValue)
        #endif
    }

    /// A close-on-exec IPv4 stream socket; -1 with errno set on failure.
    static func streamSocket() -> Int32 {
        #if os(Linux) && !ONDEVICE_PORTABLE_CHECK
        return socket(AF_INET, streamType | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
        // No type flags outside Linux: set the same state with fcntl before anyone can fork.
        let fd = socket(AF_INET, streamType, 0)
        guard fd >= 0 else { return fd }
        guard fcntl(fd, F_SETFD, FD_CLOEXEC) == 0 else {
            let code = errno
            close(fd)
            errno = code
            return -1
        }
        return fd
        #endif
    }

    /// Makes sends on a connected socket (ours or accepted) give EPIPE rather than SIGPIPE when
    /// the peer is gone, together with `noSignal`: Apple platforms set it on the socket, Linux
    /// asks per call.
    static func suppressSIGPIPE(_ fd: Int32) {
        #if canImport(Darwin)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }

    /// `send` flags that keep a closed peer from raising SIGPIPE (see `suppressSIGPIPE`).
    static var noSignal: Int32 {
        #if os(Linux) && !ONDEVICE_PORTABLE_CHECK
        Int32(MSG_NOSIGNAL)
        #else
        0
        #endif
    }

    /// `send(2)`, for callers whose own `send` hides the C function.
    static func send(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int, _ flags: Int32) -> Int {
        #if canImport(Glibc)
        Glibc.send(fd, buffer, count, flags)
        #else
        Darwin.send(fd, buffer, count, flags)
        #endif
    }
}
