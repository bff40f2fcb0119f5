import Dispatch
import Synchronization

/// Runs async work (a residency lease, a store lookup) from a connection thread and blocks that
/// thread until it is done. Only short, non-computing work goes through here; the model compute
/// itself stays on the connection thread, off Swift's cooperative pool.
func blockingAwait<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let outcome = Mutex<Result<T, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
        let result: Result<T, any Error>
        do { result = .success(try await body()) } catch { result = .failure(error) }
        outcome.withLock { $0 = result }
        done.signal()
    }
    done.wait()
    // The task stored its result before signalling.
    guard let result = outcome.withLock({ $0 }) else { preconditionFailure("task signalled without a result") }
    return try result.get()
}
