import Foundation
import Synchronization

/// A cancellation signal for work running outside Swift concurrency: set from any thread (a
/// stream's termination handler runs on whichever thread cancelled the consumer), polled by the
/// compute loop between steps.
package final class CancellationFlag: Sendable {
    private let flag = Atomic<Bool>(false)

    package init() {}

    package func cancel() { flag.store(true, ordering: .releasing) }

    package var isCancelled: Bool { flag.load(ordering: .acquiring) }
}

/// Long synchronous compute (a whole generation) runs on a thread of its own rather than on
/// Swift's cooperative pool. The pool has one thread per core: a decode loop holding one for
/// seconds starves every other task in the process — on two cores, two streams stop the app,
/// including the consumer that would cancel them.
package enum ComputeThread {
    /// Stack for the compute threads: the kernels keep their scratch on the heap, but a
    /// recursive grammar walk may go deep.
    static let stackSize = 8 << 20

    package static func start(name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread(block: body)
        thread.name = name
        thread.stackSize = stackSize
        thread.start()
    }

    /// Runs `body` on a compute thread and returns what it returns. Cancelling the calling task
    /// sets the flag `body` is given, which it polls between steps.
    package static func run<T: Sendable>(name: String, _ body: @escaping @Sendable (CancellationFlag) throws -> T) async throws -> T {
        let flag = CancellationFlag()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (done: CheckedContinuation<T, Error>) in
                start(name: name) { done.resume(with: Result { try body(flag) }) }
            }
        } onCancel: {
            flag.cancel()
        }
    }
}
