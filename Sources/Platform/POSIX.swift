#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The POSIX calls whose spelling or behaviour differs between Linux and Apple platforms, in one
/// place for every target that talks to sockets and files directly (the store, the server, the
/// index, the photo cache, the test server, the fuzz targets).
///
/// Behaviour choices test `os(Linux) && !ONDEVICE_PORTABLE_CHECK`: the check flag sends Linux
/// down the other branch, which uses only names Glibc shares with Darwin, so
/// scripts/check-portable.sh compiles it here. Spelling differences (a C enum here, a plain Int32
/// there; a struct field's name) cannot take that branch on Linux and test the import.
package enum POSIX {
    /// `SOCK_STREAM` as `socket()` and `socketpair()` take it: a C enum in Glibc, an Int32 in Darwin.
    package static var streamType: Int32 {
        #if canImport(Darwin)
        SOCK_STREAM
        #else
        Int32(SOCK_STREAM.rawValue)
        #endif
    }

    /// A close-on-exec stream socket (IPv4 unless told), non-blocking when asked, whose sends
    /// never raise SIGPIPE (with `noSignal` in their flags); -1 with errno set on failure.
    package static func streamSocket(family: Int32 = AF_INET, nonBlocking: Bool = false) -> Int32 {
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
        suppressSIGPIPE(fd)
        return fd
        #endif
    }

    /// Makes sends on a connected socket (ours or accepted) give EPIPE rather than SIGPIPE when
    /// the peer is gone, together with `noSignal`: Apple platforms set it on the socket, Linux
    /// asks per call.
    package static func suppressSIGPIPE(_ fd: Int32) {
        #if canImport(Darwin)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }

    /// `send` flags that keep a closed peer from raising SIGPIPE (see `suppressSIGPIPE`).
    package static var noSignal: Int32 {
        #if os(Linux) && !ONDEVICE_PORTABLE_CHECK
        Int32(MSG_NOSIGNAL)
        #else
        0
        #endif
    }

    /// `send(2)`, for callers whose own `send` hides the C function.
    package static func send(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int, _ flags: Int32) -> Int {
        #if canImport(Glibc)
        Glibc.send(fd, buffer, count, flags)
        #else
        Darwin.send(fd, buffer, count, flags)
        #endif
    }

    /// `connect(2)`, for callers whose own `connect` hides the C function.
    package static func connect(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
        #if canImport(Glibc)
        Glibc.connect(fd, address, length)
        #else
        Darwin.connect(fd, address, length)
        #endif
    }

    /// `open(2)`, for callers whose own `open` hides the C function. `mode` matters only with
    /// O_CREAT.
    package static func open(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 {
        #if canImport(Glibc)
        Glibc.open(path, flags, mode)
        #else
        Darwin.open(path, flags, mode)
        #endif
    }

    /// `write(2)`, for callers whose own `write` hides the C function.
    package static func write(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.write(fd, buffer, count)
        #else
        Darwin.write(fd, buffer, count)
        #endif
    }

    /// `rename(2)`, for callers whose own `rename` hides the C function.
    package static func rename(_ from: String, _ to: String) -> Int32 {
        #if canImport(Glibc)
        Glibc.rename(from, to)
        #else
        Darwin.rename(from, to)
        #endif
    }

    /// `truncate(2)`, for callers whose own `truncate` hides the C function.
    package static func truncate(_ path: String, _ size: off_t) -> Int32 {
        #if canImport(Glibc)
        Glibc.truncate(path, size)
        #else
        Darwin.truncate(path, size)
        #endif
    }

    /// Makes a file's data durable: `fdatasync` on Linux (skips metadata a replay never reads),
    /// `fsync` where fdatasync is not declared.
    package static func syncData(_ fd: Int32) -> Int32 {
        #if os(Linux) && !ONDEVICE_PORTABLE_CHECK
        fdatasync(fd)
        #else
        fsync(fd)
        #endif
    }

    /// Modification time in nanoseconds since the epoch (`st_mtim` in Glibc, `st_mtimespec` in Darwin).
    package static func modificationNanoseconds(_ st: stat) -> Int64 {
        #if canImport(Darwin)
        nanoseconds(st.st_mtimespec)
        #else
        nanoseconds(st.st_mtim)
        #endif
    }

    /// Status-change time in nanoseconds since the epoch.
    package static func changeNanoseconds(_ st: stat) -> Int64 {
        #if canImport(Darwin)
        nanoseconds(st.st_ctimespec)
        #else
        nanoseconds(st.st_ctim)
        #endif
    }

    private static func nanoseconds(_ t: timespec) -> Int64 { Int64(t.tv_sec) * 1_000_000_000 + Int64(t.tv_nsec) }
}
