#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The POSIX calls whose spelling differs between Linux and Apple platforms, so the rest of the
/// store is written once. Behaviour choices test `os(Linux) && !ONDEVICE_PORTABLE_CHECK`: the
/// check flag sends Linux down the other branch, which uses only names Glibc shares with Darwin,
/// so scripts/check-portable.sh compiles it here. Spelling differences (a C enum here, a plain
/// Int32 there; a struct field's name) cannot take that branch on Linux and test the import.
enum POSIX {
    /// `SOCK_STREAM` as `socket()` takes it: a C enum in Glibc, an Int32 in Darwin.
    static var streamType: Int32 {
        #if canImport(Darwin)
        SOCK_STREAM
        #else
        Int32(SOCK_STREAM.rawValue)
        #endif
    }

    /// A close-on-exec stream socket, non-blocking when asked, whose sends never raise SIGPIPE
    /// (with `noSignal` in their flags); -1 with errno set on failure.
    static func streamSocket(family: Int32, nonBlocking: Bool) -> Int32 {
        #if os(Linux) && !ONDEVICE_PORTABLE_CHECK
        let flags = Int32(SOCK_CLOEXEC.rawValue) | (nonBlocking ? Int32(SOCK_NONBLOCK.rawValue) : 0)
        return socket(family, streamType | flags, 0)
        #else
        // No type flags outside Linux: set the same state with fcntl before anyone can fork.
        let fd = socket(family, streamType, 0)
        guard fd >= 0 else { return fd }
        guard fcntl(fd, F_SETFD, FD_CLOEXEC) == 0,
              !nonBlocking || fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) == 0 else {
            let code = errno
            close(fd)
            errno = code
            return -1
        }
        #if canImport(Darwin)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
        return fd
        #endif
    }

    /// `send` flags so a peer that closed gives EPIPE rather than killing the process: Linux
    /// asks per call; elsewhere `streamSocket` set SO_NOSIGPIPE on the socket instead.
    static var noSignal: Int32 {
        #if os(Linux) && !ONDEVICE_PORTABLE_CHECK
        Int32(MSG_NOSIGNAL)
        #else
        0
        #endif
    }

    /// `connect(2)`, for callers whose own `connect` hides the C function.
    static func connect(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
        #if canImport(Glibc)
        Glibc.connect(fd, address, length)
        #else
        Darwin.connect(fd, address, length)
        #endif
    }

    /// `rename(2)`, for callers whose own `rename` hides the C function.
    static func rename(_ from: String, _ to: String) -> Int32 {
        #if canImport(Glibc)
        Glibc.rename(from, to)
        #else
        Darwin.rename(from, to)
        #endif
    }

    /// `truncate(2)`, for callers whose own `truncate` hides the C function.
    static func truncate(_ path: String, _ size: off_t) -> Int32 {
        #if canImport(Glibc)
        Glibc.truncate(path, size)
        #else
        Darwin.truncate(path, size)
        #endif
    }

    /// Modification time in nanoseconds since the epoch (`st_mtim` in Glibc, `st_mtimespec` in Darwin).
    static func modificationNanoseconds(_ st: stat) -> Int64 {
        #if canImport(Darwin)
        nanoseconds(st.st_mtimespec)
        #else
        nanoseconds(st.st_mtim)
        #endif
    }

    /// Status-change time in nanoseconds since the epoch.
    static func changeNanoseconds(_ st: stat) -> Int64 {
        #if canImport(Darwin)
        nanoseconds(st.st_ctimespec)
        #else
        nanoseconds(st.st_ctim)
        #endif
    }

    private static func nanoseconds(_ t: timespec) -> Int64 { Int64(t.tv_sec) * 1_000_000_000 + Int64(t.tv_nsec) }
}
