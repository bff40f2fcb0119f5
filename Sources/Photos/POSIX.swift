#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The file calls the descriptor cache needs whose spelling differs between Linux and Apple
/// platforms. These are naming differences only, so they test the import (nothing here has a
/// Linux-only behaviour for ONDEVICE_PORTABLE_CHECK to switch off).
enum POSIX {
    /// `write(2)`, for callers whose own `write` hides the C function.
    static func write(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.write(fd, buffer, count)
        #else
        Darwin.write(fd, buffer, count)
        #endif
    }

    /// Modification time in nanoseconds since the epoch (`st_mtim` in Glibc, `st_mtimespec` in Darwin).
    static func modificationNanoseconds(_ st: stat) -> Int64 {
        #if canImport(Darwin)
        Int64(st.st_mtimespec.tv_sec) * 1_000_000_000 + Int64(st.st_mtimespec.tv_nsec)
        #else
        Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)
        #endif
    }
}
