import Foundation

/// Runs blocking code (a child process, a socket client) on a thread of its own. Test functions
/// run on Swift's cooperative pool, as wide as the machine has cores (two here), which the
/// in-process servers and runtimes need for their actors: a test that blocks a pool thread for
/// a child process starves every other test's async work while it waits.
package func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread {
            do { continuation.resume(returning: try body()) } catch { continuation.resume(throwing: error) }
        }.start()
    }
}

/// Runs `body` on a thread of its own while tasks hold every thread of the cooperative pool with
/// synchronous waits, as a long synchronous test or an app's blocking loop does. Returns what
/// `body` returns and whether every pool thread was held: when other tests already hold some,
/// the blockers wait their turn, and after `settle` seconds `body` runs anyway.
package func withCooperativePoolBlocked<T: Sendable>(settle: Double = 20,
                                                     _ body: @escaping @Sendable () throws -> T) async throws -> (T, heldAll: Bool) {
    try await offPool {
        let width = ProcessInfo.processInfo.activeProcessorCount
        let started = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        for _ in 0..<width {
            Task.detached {
                started.signal()
                release.wait()
            }
        }
        defer { for _ in 0..<width { release.signal() } }
        let deadline = DispatchTime.now() + settle
        var held = 0
        while held < width, started.wait(timeout: deadline) == .success { held += 1 }
        return (try body(), held == width)
    }
}
