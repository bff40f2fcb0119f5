#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The file calls the index journal needs whose spelling or availability differs between Linux
/// and Apple platforms. Behaviour choices test `os(Linux) && !ONDEVICE_PORTABLE_CHECK`: the
/// check flag sends Linux down the other branch, so scripts/check-portable.sh compiles it here.
enum POSIX {
    /// `open(2)`, for callers whose own `open` hides the C function. `mode` matters only with
    /// O_CREAT.
    static func open(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 {
        #if canImport(Glibc)
        Glibc.open(path, flags, mode)
        #else
        Darwin.open(path, flags, mode)
        #endif
    }

    /// Makes a file's data durable: `fdatasync` on Linux (skips metadata a replay never reads),
    /// `fsync` where fdatasync is not declared.
    static func syncData(_ fd: Int32) -> Int32 {
        #if os(Linux) && !ONDEVICE_PORTABLE_CHECK
        fdatasync(fd)
        #else
        fsync(fd)
        #endif
    }
}
