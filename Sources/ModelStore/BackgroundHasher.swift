import Foundation

/// SHA-256 on its own thread, fed chunks in order, so hashing overlaps the network and disk
/// instead of adding to them (hashing alone is slower than a loopback transfer).
final class BackgroundHasher: Sendable {
    private let channel = HashChannel()

    init(startingWith initial: SHA256) {
        // The worker holds the channel, not `self`, so dropping the hasher stops the thread.
        let channel = self.channel
        let thread = Thread { channel.run(initial) }
        thread.start()
    }

    deinit { channel.send(.stop) }

    func update(_ bytes: UnsafeRawBufferPointer) { channel.send(.data(Array(bytes))) }

    /// Forgets everything hashed so far.
    func reset() { channel.send(.reset) }

    /// Waits for the queued chunks and returns the digest of everything fed since the last reset.
    func digest() -> SHA256Digest { channel.digest() }
}

/// The queue between feeders and the worker thread.
///
/// `@unchecked Sendable`: `queue`, `head` and `result` are only touched under `condition`; the
/// hasher state lives in the worker's locals.
private final class HashChannel: @unchecked Sendable {
    enum Command { case data([UInt8]), reset, digest, stop }
    private let condition = NSCondition()
    private var queue = [Command]()
    private var head = 0
    private var result: SHA256Digest?
    /// At most this many chunks wait, so a slow hasher slows the reader instead of filling memory.
    private let capacity = 16

    func send(_ command: Command) {
        condition.lock()
        while queue.count - head >= capacity { condition.wait() }
        queue.append(command)
        condition.broadcast()
        condition.unlock()
    }

    func digest() -> SHA256Digest {
        send(.digest)
        condition.lock()
        defer { condition.unlock() }
        while result == nil { condition.wait() }
        defer { result = nil }
        return result!
    }

    func run(_ initial: SHA256) {
        var hasher = initial
        while true {
            condition.lock()
            while head == queue.count { condition.wait() }
            let command = queue[head]
            head += 1
            if head >= 64 { queue.removeFirst(head); head = 0 }
            condition.broadcast()
            condition.unlock()
            switch command {
            case .data(let bytes): hasher.update(bytes)
            case .reset: hasher = SHA256(backend: hasher.backend)
            case .digest:
                let copy = hasher
                condition.lock()
                result = copy.finalize()
                condition.broadcast()
                condition.unlock()
            case .stop:
                return
            }
        }
    }
}
