#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A value behind a pthread mutex: the one lock every target uses for state shared between
/// threads.
///
/// Not `Synchronization.Mutex`, because ThreadSanitizer cannot see all of it on Linux: its
/// uncontended path is an inlined atomic, but its contended path waits on a futex inside the
/// uninstrumented Swift runtime, so TSan misses the ordering a contended lock gives and reports
/// races that are not there. TSan intercepts `pthread_mutex_lock`, so every edge this lock makes
/// is one it knows (scripts/tsan.sh). The mutex lives in memory of its own that never moves.
package final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    package init(_ value: sending Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        precondition(pthread_mutex_init(mutex, nil) == 0, "pthread_mutex_init failed")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value while holding the lock. Not reentrant: `body` must not take
    /// this lock again.
    package func withLock<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
