import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive `flock` on a lock file, held until the value is dropped.
///
/// flock locks belong to the open file description, so two tasks in one process that each open
/// the file exclude each other just as two processes do, and a killed process releases its lock.
package struct FileLock: ~Copyable {
    private let fd: Int32

    /// Waits (polling, so the wait can be cancelled) until the lock is ours.
    package static func acquire(_ path: String, pollInterval: Duration = .milliseconds(20)) async throws(StoreError) -> FileLock {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .lockFailed(path: path, errno: errno) }
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            guard code == EWOULDBLOCK || code == EINTR else {
                close(fd)
                throw .lockFailed(path: path, errno: code)
            }
            do {
                try await Task.sleep(for: pollInterval)
            } catch {
                close(fd)
                throw .cancelled
            }
        }
        return FileLock(fd: fd)
    }

    private init(fd: Int32) { self.fd = fd }

    /// Releases the lock now (dropping the value does the same).
    package consuming func release() {}

    deinit { close(fd) }  // closing the last descriptor releases the lock
}
