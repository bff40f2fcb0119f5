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
/// A download uses it from one transport thread at a time (attempts are sequential), and reads
/// the digest on another once the transfer has ended; the state sits behind an uncontended lock
/// so that hand-over is an ordering ThreadSanitizer can see (it does not see the one a
/// continuation's resumption gives across the Swift runtime).
package final class PartialFile: Sendable {
    package let path: String
    private let fd: Int32
    // Hashing runs inline when the CPU has SHA instructions: then it costs less than the copies
    // around it, and a second thread would add a copy and a wake-up per chunk (measured: ~0.5
    // CPU s/GB more on 2 cores). The portable rounds are slower than many links, so they run on
    // their own thread, overlapping the transfer. Exactly one of the two is non-nil.
    private struct State {
        var length: Int64
        var inlineHasher: SHA256?
        /// Bytes before this offset have been handed to disk writeback (see `append`).
        var writebackOffset: Int64
    }
    private let state: Locked<State>
    private let backgroundHasher: BackgroundHasher?
    private static let writebackStep: Int64 = 8 << 20
    /// Bytes that were already on disk when this download began (from an earlier run).
    package let resumedBytes: Int64
    /// Called with the byte delta as the file grows (negative when it restarts from zero).
    private let onProgress: @Sendable (Int64) -> Void
    private let onDiskFull: @Sendable () -> StoreError

    /// The bytes written so far.
    package var length: Int64 { state.withLock { $0.length } }

    /// Opens or creates the partial file and hashes what it already holds, so a resumed download
    /// ends with the digest of the whole file. `backend` is for tests of the portable path.
    package init(path: String, backend: SHA256.Backend = .preferred, onProgress: @escaping @Sendable (Int64) -> Void, onResumed: @Sendable (Int64) -> Void = { _ in },
         onDiskFull: @escaping @Sendable () -> StoreError) throws(StoreError) {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .io(path: path, errno: errno) }
        self.fd = fd
        self.path = path
        self.onProgress = onProgress
        self.onDiskFull = onDiskFull
        var hasher = SHA256(backend: backend)
        var length: Int64 = 0
        let inline = backend == .hardware
        do {
            try FileSystem.read(path) { chunk throws(StoreError) in
                hasher.update(chunk)
                length += Int64(chunk.count)
            }
        } catch {
            close(fd)
            throw error
        }
        self.state = Locked(State(length: length, inlineHasher: inline ? hasher : nil, writebackOffset: length))
        self.backgroundHasher = inline ? nil : BackgroundHasher(startingWith: hasher)
        self.resumedBytes = length
        if length > 0 { onResumed(length) }
    }

    deinit { close(fd) }

    /// Drops everything written so far (server ignored Range, or the bytes proved wrong).
    package func restart() throws(StoreError) {
        guard ftruncate(fd, 0) == 0 else { throw .io(path: path, errno: errno) }
        let dropped = state.withLock { state -> Int64 in
            let dropped = state.length
            state.length = 0
            state.writebackOffset = 0
            if state.inlineHasher != nil { state.inlineHasher = SHA256(backend: .hardware) }
            return dropped
        }
        backgroundHasher?.reset()
        onProgress(-dropped)
    }

    package func append(_ bytes: UnsafeRawBufferPointer) throws(StoreError) {
        guard let start = bytes.baseAddress else { return }
        let failure: Int32? = state.withLock { state in
            var base = start, remaining = bytes.count
            while remaining > 0 {
                let written = pwrite(fd, base, remaining, off_t(state.length + Int64(bytes.count - remaining)))
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                base += written
                remaining -= written
            }
            state.inlineHasher?.update(bytes)
            state.length += Int64(bytes.count)
            // Start writing each finished 8 MiB to disk now, so the final fsync does not have to
            // write the whole file while the caller waits (it was most of the gap to curl).
            if state.length - state.writebackOffset >= Self.writebackStep {
                _ = od_start_writeback(fd, state.writebackOffset, state.length - state.writebackOffset)
                state.writebackOffset = state.length
            }
            return nil
        }
        if let failure {
            if failure == ENOSPC || failure == EDQUOT { throw onDiskFull() }
            throw .io(path: path, errno: failure)
        }
        backgroundHasher?.update(bytes)
        onProgress(Int64(bytes.count))
    }

    /// Flushes to disk and returns the digest of the whole file.
    package func finish() throws(StoreError) -> String {
        let inline = state.withLock { $0.inlineHasher }
        let digest = (inline.map { $0.finalize() } ?? backgroundHasher?.digest())?.hexString ?? ""
        guard fsync(fd) == 0 else { throw .io(path: path, errno: errno) }
        return digest
    }
}
