import Dispatch
import EngineSupport
import Foundation
import Synchronization
import Testing

private actor ThreadProbe {
    func threadName() -> String? { currentThreadName() }
}

@Suite(.serialized) struct OwnThreadsExecutorTests {
    /// A task that prefers the executor runs its own code and its default-actor hops on the
    /// executor's threads, never on the cooperative pool's.
    @Test func `a task and its actor hops run on the executor's threads`() async throws {
        let probe = ThreadProbe()
        let names = try await offPoolThread { () -> [String?] in
            let result = Mutex<[String?]>([]), done = DispatchSemaphore(value: 0)
            Task(executorPreference: OwnThreadsExecutor.shared) {
                let before = currentThreadName()
                let inActor = await probe.threadName()
                let after = currentThreadName()
                result.withLock { $0 = [before, inActor, after] }
                done.signal()
            }
            _ = done.wait(timeout: .now() + 30)
            return result.withLock { $0 }
        }
        #expect(names == Array(repeating: "ondevice.tasks", count: 3))
    }

    @Test func `a burst of tasks that block each other all finish`() async throws {
        // Job i waits until job i + 1 has started: a pool of fixed width would deadlock.
        let count = 12
        let finished = try await offPoolThread { () -> Int in
            let gates = (0..<count).map { _ in DispatchSemaphore(value: 0) }
            let done = DispatchSemaphore(value: 0)
            for index in 0..<count {
                Task(executorPreference: OwnThreadsExecutor.shared) {
                    if index > 0 { gates[index - 1].signal() }
                    if index < count - 1 { gates[index].wait() }
                    done.signal()
                }
            }
            var finished = 0
            for _ in 0..<count where done.wait(timeout: .now() + 30) == .success { finished += 1 }
            return finished
        }
        #expect(finished == count)
    }
}

/// Waits on a plain thread: the cooperative pool is what these tests block.
private func offPoolThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

/// The running thread's name (a synchronous function: `Thread.current` is not for async code,
/// which is exactly what is being checked here).
private func currentThreadName() -> String? { Thread.current.name }
