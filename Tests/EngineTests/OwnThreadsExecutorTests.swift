import Dispatch
import EngineSupport
import Foundation
import Platform
import Testing

private actor ThreadProbe {
    func threadName() -> String { currentThreadName() }
}

private final class NameLog: Sendable {
    let list = Locked<[String]>([])
}

@Suite(.serialized) struct OwnThreadsExecutorTests {
    /// A task that prefers the executor runs its own code and its default-actor hops on the
    /// executor's threads, never on the cooperative pool's.
    @Test func `a task and its actor hops run on the executor's threads`() async throws {
        let probe = ThreadProbe()
        let names = try await offPoolThread { () -> [String] in
            let result = Locked<[String]>([]), done = DispatchSemaphore(value: 0)
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
        // Each of them starts a thread, and each thread must carry the executor's name: Linux
        // starts a thread with its creator's name, and Foundation's setter sometimes loses a race.
        let count = 12
        let (finished, names) = try await offPoolThread { () -> (Int, [String]) in
            let gates = (0..<count).map { _ in DispatchSemaphore(value: 0) }
            let done = DispatchSemaphore(value: 0), names = NameLog()
            for index in 0..<count {
                Task(executorPreference: OwnThreadsExecutor.shared) {
                    names.list.withLock { $0.append(currentThreadName()) }
                    if index > 0 { gates[index - 1].signal() }
                    if index < count - 1 { gates[index].wait() }
                    done.signal()
                }
            }
            var finished = 0
            for _ in 0..<count where done.wait(timeout: .now() + 30) == .success { finished += 1 }
            return (finished, names.list.withLock { $0 })
        }
        #expect(finished == count)
        #expect(names == Array(repeating: "ondevice.tasks", count: count))
    }
}

/// Waits on a plain thread: the cooperative pool is what these tests block.
private func offPoolThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
