import Dispatch
import OnDevice
import Platform

/// Runs async work (a residency lease, a store lookup) from a connection thread and blocks that
/// thread until it is done. Only short, non-computing work goes through here; the model compute
/// itself stays on the connection thread, off Swift's cooperative pool. The task prefers
/// `OwnThreadsExecutor`, so a request is answered even while an app's own work holds every
/// thread of the pool.
func blockingAwait<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let outcome = Locked<Result<T, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task(executorPreference: OwnThreadsExecutor.shared) {
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

/// `blockingAwait` for work that should stop when the client leaves: the connection thread
/// checks `cancelWhen` every 100 ms while it waits and cancels the task once it is true (the
/// public API's ops stop at their next check, and return their leases).
package func blockingAwait<T: Sendable>(cancelWhen isCancelled: () -> Bool, _ body: @escaping @Sendable () async throws -> T) throws -> T {
    let outcome = Locked<Result<T, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    let task = Task(executorPreference: OwnThreadsExecutor.shared) {
        let result: Result<T, any Error>
        do { result = .success(try await body()) } catch { result = .failure(error) }
        outcome.withLock { $0 = result }
        done.signal()
    }
    while done.wait(timeout: .now() + .milliseconds(100)) == .timedOut {
        if isCancelled() { task.cancel() }
    }
    guard let result = outcome.withLock({ $0 }) else { preconditionFailure("task signalled without a result") }
    return try result.get()
}

/// An async stream read from a connection thread: a task consumes the stream into a buffer, and
/// `next` blocks the thread until the next element (or the end) arrives. Used where a door
/// streams what the public API produces as an `AsyncThrowingStream` (speech, sentence by sentence).
final class BlockingIterator<Element: Sendable>: Sendable {
    private enum Item: Sendable {
        case element(Element)
        case end(Result<Void, any Error>)
    }
    private final class Buffer: Sendable {
        let items = Locked<[Item]>([])
        let ready = DispatchSemaphore(value: 0)

        func push(_ item: Item) {
            items.withLock { $0.append(item) }
            ready.signal()
        }
    }
    private let buffer = Buffer()
    private let task: Task<Void, Never>

    init(_ stream: AsyncThrowingStream<Element, any Error>) {
        let buffer = buffer
        task = Task(executorPreference: OwnThreadsExecutor.shared) {
            do {
                for try await element in stream { buffer.push(.element(element)) }
                buffer.push(.end(.success(())))
            } catch {
                buffer.push(.end(.failure(error)))
            }
        }
    }

    deinit { task.cancel() }

    /// The next element; nil at the end of the stream, or when `isCancelled` (polled every
    /// 100 ms while waiting) turns true, which also cancels the stream. Rethrows the stream's error.
    func next(isCancelled: () -> Bool) throws -> Element? {
        while buffer.ready.wait(timeout: .now() + .milliseconds(100)) == .timedOut {
            if isCancelled() {
                task.cancel()
                return nil
            }
        }
        let item = buffer.items.withLock { items in
            let first = items[0]
            if case .element = first { items.removeFirst() }
            return first
        }
        switch item {
        case .element(let element): return element
        case .end(let result):
            buffer.ready.signal()  // the end stays for a later call
            try result.get()
            return nil
        }
    }

    func cancel() { task.cancel() }
}
