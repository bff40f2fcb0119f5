import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SHA-256 of a file that another thread is appending to, computed on a thread of its own by
/// reading back what the writer has published.
///
/// The writer only receives and writes; hashing (with SHA-NI about half the receiving thread's
/// CPU time per byte) moves to a core the transfer does not use, and nothing is copied or woken
/// per chunk: the hasher wakes once per `step` published bytes and reads them from the page
/// cache, where they still are. It reads with `pread` (not a mapping), so a file cut short under
/// it gives a short read and an error, never a fault.
final class TrailingHasher: Sendable {
    private let channel: Channel

    /// Hashes `fd` from offset 0; the bytes already in the file count once `publish` says so.
    init(fd: Int32, backend: SHA256.Backend) {
        let channel = Channel(fd: fd, backend: backend)
        self.channel = channel
        // The worker holds the channel, not `self`, so dropping the hasher stops the thread.
        let thread = Thread { channel.run() }
        thread.start()
    }

    deinit { channel.stop() }

    /// Stops the worker and waits until it no longer reads the file (before `fd` is closed).
    func stop() { channel.stop() }

    /// The file now holds `length` bytes to hash (it only grows between resets).
    func publish(_ length: Int64) { channel.publish(length) }

    /// Forgets everything hashed so far; call before the file is truncated.
    func reset() { channel.reset() }

    /// Waits until every published byte is hashed and returns their digest; `errno` when reading
    /// the file back failed.
    func digest() -> Result<SHA256Digest, Errno> { channel.digest() }
}

/// A failed system call's `errno`, as an error a `Result` can carry.
struct Errno: Error { var code: Int32 }

/// The state between the writer and the worker; `@unchecked Sendable` because every field but
/// the immutable ones is touched only under `condition`, and the hasher itself lives in the
/// worker's locals.
private final class Channel: @unchecked Sendable {
    let fd: Int32
    let backend: SHA256.Backend
    /// Published bytes the worker lets gather before it reads them back.
    static let step: Int64 = 2 << 20
    static let readSize = 256 << 10
    /// The most one pass reads before it looks at the channel again, so `stop` and `reset`
    /// never wait long behind a slow (portable) hasher.
    static let passLimit: Int64 = 8 << 20

    private let condition = NSCondition()
    private var published: Int64 = 0
    private var hashed: Int64 = 0
    /// Bumped by `reset`: a pass that began before it is discarded.
    private var generation = 0
    private var workerIdle = false
    private var digestWanted = false
    private var result: Result<SHA256Digest, Errno>?
    private var failure: Int32?
    private var stopping = false
    private var exited = false

    init(fd: Int32, backend: SHA256.Backend) {
        self.fd = fd
        self.backend = backend
    }

    func publish(_ length: Int64) {
        condition.lock()
        published = length
        if workerIdle, published - hashed >= Self.step { condition.broadcast() }
        condition.unlock()
    }

    func reset() {
        condition.lock()
        generation += 1
        published = 0
        hashed = 0
        failure = nil
        condition.unlock()
    }

    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while !exited { condition.wait() }
        condition.unlock()
    }

    func digest() -> Result<SHA256Digest, Errno> {
        condition.lock()
        defer { condition.unlock() }
        digestWanted = true
        condition.broadcast()
        while result == nil { condition.wait() }
        defer { result = nil }
        return result!
    }

    func run() {
        var hasher = SHA256(backend: backend)
        var seen = 0
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.readSize, alignment: 64)
        defer { buffer.deallocate() }
        condition.lock()
        while !stopping {
            if generation != seen {
                hasher = SHA256(backend: backend)
                seen = generation
            }
            if digestWanted, hashed == published || failure != nil {
                digestWanted = false
                result = failure.map { .failure(Errno(code: $0)) } ?? .success(hasher.finalizedCopy())
                condition.broadcast()
                continue
            }
            let lag = published - hashed
            guard failure == nil, lag >= Self.step || (digestWanted && lag > 0) else {
                workerIdle = true
                condition.wait()
                workerIdle = false
                continue
            }
            let (start, end) = (hashed, min(published, hashed + Self.passLimit))
            condition.unlock()
            let readFailure = hashRange(start..<end, into: &hasher, buffer: buffer)
            condition.lock()
            guard generation == seen else { continue }  // reset meanwhile: the pass is void
            if let readFailure { failure = readFailure } else { hashed = end }
        }
        exited = true
        condition.broadcast()
        condition.unlock()
    }

    /// Reads `range` back and hashes it; the errno of a failed or short read.
    private func hashRange(_ range: Range<Int64>, into hasher: inout SHA256, buffer: UnsafeMutableRawBufferPointer) -> Int32? {
        var offset = range.lowerBound
        while offset < range.upperBound {
            let want = Int(min(Int64(buffer.count), range.upperBound - offset))
            let got = pread(fd, buffer.baseAddress, want, off_t(offset))
            if got < 0 {
                if errno == EINTR { continue }
                return errno
            }
            if got == 0 { return EIO }  // the file is shorter than published: cut under us
            hasher.update(UnsafeRawBufferPointer(start: buffer.baseAddress, count: got))
            offset += Int64(got)
        }
        return nil
    }
}

private extension SHA256 {
    /// The digest of what was fed so far, leaving the hasher able to take more.
    func finalizedCopy() -> SHA256Digest {
        let copy = self
        return copy.finalize()
    }
}
