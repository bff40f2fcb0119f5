#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The socket names the HTTP fuzz target needs whose spelling differs between Linux and Apple
/// platforms. Behaviour choices test `os(Linux) && !ONDEVICE_PORTABLE_CHECK`, so
/// scripts/check-portable.sh compiles the non-Linux branch here.
enum POSIX {
    /// `SOCK_STREAM` as `socketpair()` takes it: a C enum in Glibc, an Int32 in Darwin.
    static var streamType: Int32 {
        #if canImport(Darwin)
        SOCK_STREAM
        #else
        Int32(SOCK_STREAM.rawValue)
        #endif
    }

    /// `send` flags that keep a closed peer from raising SIGPIPE. Apple platforms have no such
    /// flag and need none here: the fuzz input is sent while the reading end is still open.
    static var noSignal: Int32 {
        #if os(Linux) && !ONDEVICE_PORTABLE_CHECK
        Int32(MSG_NOSIGNAL)
        #else
        0
        #endif
    }
}
