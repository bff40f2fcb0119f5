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
