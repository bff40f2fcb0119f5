import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The single-writer lock of an index directory: an exclusive `flock` on `index.lock`, held
/// while a writable `DocumentIndex` is open. A killed process releases it with its descriptors,
/// so a crash never leaves an index locked.
final class IndexLock: Sendable {
    private let fd: Int32

    /// Takes the lock, waiting up to `timeout` seconds for another writer to finish.
    init(path: String, timeout: Double) throws(RetrievalError) {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .io(path: path, operation: "open lock", errno: errno) }
        let deadline = Date().addingTimeInterval(timeout)
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            guard code == EWOULDBLOCK || code == EINTR else {
                close(fd)
                throw .io(path: path, operation: "flock", errno: code)
            }
            guard Date() < deadline else {
                close(fd)
                throw .indexLocked(path: path)
            }
            usleep(20_000)
        }
        self.fd = fd
    }

    deinit { close(fd) }
}
