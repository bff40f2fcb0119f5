import CKernels
import Foundation
import Platform
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A `<file>.partial` being written: its length so far and the SHA-256 of those bytes.
///
/// The transport thread appends; a `TrailingHasher` reads the bytes back on a thread of its own,
/// so hashing overlaps the transfer without a copy or a wake-up per chunk. A download uses the
/// file from one transport thread at a time (attempts are sequential) and reads the digest on
/// another once the transfer has ended; the length sits behind an uncontended lock so that
/// hand-over is an ordering ThreadSanitizer can see (it does not see the one a continuation's
/// resumption gives across the Swift runtime).
package final class PartialFile: Sendable {
    package let path: String
    private let fd: Int32
    private struct State {
        var length: Int64
        /// Bytes before this offset have been handed to disk writeback (see `append`).
        var writebackOffset: Int64
    }
    private let state: Locked<State>
    private let hasher: TrailingHasher
    private static let writebackStep: Int64 = 8 << 20
    /// Bytes that were already on disk when this download began (from an earlier run).
    package let resumedBytes: Int64
    /// Called with the byte delta as the file grows (negative when it restarts from zero).
    private let onProgress: @Sendable (Int64) -> Void
    private let onDiskFull: @Sendable () -> StoreError

    /// The bytes written so far.
    package var length: Int64 { state.withLock { $0.length } }

    /// Opens or creates the partial file; what it already holds is hashed with what follows, so a
    /// resumed download ends with the digest of the whole file. `backend` is for tests of the
    /// portable rounds.
    package init(path: String, backend: SHA256.Backend = .preferred, onProgress: @escaping @Sendable (Int64) -> Void, onResumed: @Sendable (Int64) -> Void = { _ in },
         onDiskFull: @escaping @Sendable () -> StoreError) throws(StoreError) {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .io(path: path, errno: errno) }
        var status = stat()
        guard fstat(fd, &status) == 0 else {
            let failure = errno
            close(fd)
            throw .io(path: path, errno: failure)
        }
        let length = Int64(status.st_size)
        self.fd = fd
        self.path = path
        self.onProgress = onProgress
        self.onDiskFull = onDiskFull
        self.state = Locked(State(length: length, writebackOffset: length))
        self.hasher = TrailingHasher(fd: fd, backend: backend)
        hasher.publish(length)
        self.resumedBytes = length
        if length > 0 { onResumed(length) }
    }

    deinit {
        hasher.stop()  // it reads `fd`: stop it before the number can be reused
        close(fd)
    }

    /// Drops everything written so far (server ignored Range, or the bytes proved wrong).
    package func restart() throws(StoreError) {
        hasher.reset()  // before the bytes it may be reading go
        guard ftruncate(fd, 0) == 0 else { throw .io(path: path, errno: errno) }
        let dropped = state.withLock { state -> Int64 in
            let dropped = state.length
            state.length = 0
            state.writebackOffset = 0
            return dropped
        }
        onProgress(-dropped)
    }

    package func append(_ bytes: UnsafeRawBufferPointer) throws(StoreError) {
        guard let start = bytes.baseAddress else { return }
        let outcome: Result<Int64, Errno> = state.withLock { state in
            var base = start, remaining = bytes.count
            while remaining > 0 {
                let written = pwrite(fd, base, remaining, off_t(state.length + Int64(bytes.count - remaining)))
                if written < 0 {
                    if errno == EINTR { continue }
                    return .failure(Errno(code: errno))
                }
                base += written
                remaining -= written
            }
            state.length += Int64(bytes.count)
            // Start writing each finished 8 MiB to disk now, so the final fsync does not have to
            // write the whole file while the caller waits (it was most of the gap to curl).
            if state.length - state.writebackOffset >= Self.writebackStep {
                _ = od_start_writeback(fd, state.writebackOffset, state.length - state.writebackOffset)
                state.writebackOffset = state.length
            }
            return .success(state.length)
        }
        switch outcome {
        case .success(let length): hasher.publish(length)
        case .failure(let failure):
            if failure.code == ENOSPC || failure.code == EDQUOT { throw onDiskFull() }
            throw .io(path: path, errno: failure.code)
        }
        onProgress(Int64(bytes.count))
    }

    /// Flushes to disk and returns the digest of the whole file.
    package func finish() throws(StoreError) -> String {
        guard fsync(fd) == 0 else { throw .io(path: path, errno: errno) }
        switch hasher.digest() {
        case .success(let digest): return digest.hexString
        case .failure(let failure): throw .io(path: path, errno: failure.code)
        }
    }
}
