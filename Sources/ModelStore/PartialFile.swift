import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A `<file>.partial` being written: its length so far and the SHA-256 of those bytes.
///
/// `@unchecked Sendable`: it owns a raw file descriptor and hasher state; a download uses it from
/// one transport thread at a time (attempts are sequential), never concurrently.
final class PartialFile: @unchecked Sendable {
    let path: String
    private let fd: Int32
    private(set) var length: Int64
    private let hasher: BackgroundHasher
    /// Bytes that were already on disk when this download began (from an earlier run).
    let resumedBytes: Int64
    /// Called with the byte delta as the file grows (negative when it restarts from zero).
    private let onProgress: @Sendable (Int64) -> Void
    private let onDiskFull: @Sendable () -> StoreError

    /// Opens or creates the partial file and hashes what it already holds, so a resumed download
    /// ends with the digest of the whole file.
    init(path: String, onProgress: @escaping @Sendable (Int64) -> Void, onResumed: @Sendable (Int64) -> Void = { _ in },
         onDiskFull: @escaping @Sendable () -> StoreError) throws(StoreError) {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .io(path: path, errno: errno) }
        self.fd = fd
        self.path = path
        self.onProgress = onProgress
        self.onDiskFull = onDiskFull
        var hasher = SHA256()
        var length: Int64 = 0
        do {
            try FileSystem.read(path) { chunk throws(StoreError) in
                hasher.update(chunk)
                length += Int64(chunk.count)
            }
        } catch {
            close(fd)
            throw error
        }
        self.hasher = BackgroundHasher(startingWith: hasher)
        self.length = length
        self.resumedBytes = length
        if length > 0 { onResumed(length) }
    }

    deinit { close(fd) }

    /// Drops everything written so far (server ignored Range, or the bytes proved wrong).
    func restart() throws(StoreError) {
        guard ftruncate(fd, 0) == 0 else { throw .io(path: path, errno: errno) }
        onProgress(-length)
        length = 0
        hasher.reset()
    }

    func append(_ bytes: UnsafeRawBufferPointer) throws(StoreError) {
        guard var base = bytes.baseAddress else { return }
        var remaining = bytes.count
        while remaining > 0 {
            let written = pwrite(fd, base, remaining, off_t(length + Int64(bytes.count - remaining)))
            if written < 0 {
                if errno == EINTR { continue }
                if errno == ENOSPC || errno == EDQUOT { throw onDiskFull() }
                throw .io(path: path, errno: errno)
            }
            base += written
            remaining -= written
        }
        hasher.update(bytes)
        length += Int64(bytes.count)
        onProgress(Int64(bytes.count))
    }

    /// Flushes to disk and returns the digest of the whole file.
    func finish() throws(StoreError) -> String {
        let digest = hasher.digest().hexString
        guard fsync(fd) == 0 else { throw .io(path: path, errno: errno) }
        return digest
    }
}
