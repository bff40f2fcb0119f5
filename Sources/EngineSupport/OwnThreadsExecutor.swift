import Foundation

/// A task executor whose jobs run on threads of its own, outside Swift's cooperative pool.
///
/// The cooperative pool has one thread per core. Whatever an app (or a test process) runs there
/// for seconds — a synchronous loop, a blocking wait — holds those threads, and every other task
/// waits behind it. Work that must answer while the pool is busy runs here instead: a server's
/// connection threads waiting on a lease, and model loads, which read and repack weights for
/// seconds. Tasks started with this executor as their preference
/// (`Task(executorPreference: OwnThreadsExecutor.shared)`) also run their default-actor hops here.
///
/// The pool is elastic: a job that finds no idle thread starts one, so a job never waits behind a
/// blocked one; a thread idle for `idleSeconds` ends.
package final class OwnThreadsExecutor: TaskExecutor, @unchecked Sendable {
    /// The process-wide instance.
    package static let shared = OwnThreadsExecutor(name: "ondevice.tasks")

    /// Thread name (Linux shows at most 15 bytes of it to debuggers and `top`).
    private let name: String
    private let idleSeconds: TimeInterval
    // Guards `queue`, `idle` and `threads`; workers wait on it for jobs. The only mutable state,
    // touched only with the lock held: that is what makes the class safe to share.
    private let condition = NSCondition()
    private var queue: [UnownedJob] = []
    private var idle = 0
    private var threads = 0

    package init(name: String, idleSeconds: TimeInterval = 10) {
        self.name = name
        self.idleSeconds = idleSeconds
    }

    /// Threads alive now (idle or running a job).
    package var threadCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return threads
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        queue.append(job)
        let start = idle < queue.count
        if start { threads += 1 } else { condition.signal() }
        condition.unlock()
        if start {
            let thread = Thread { [self] in work() }
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    private func work() {
        // Named from inside, with pthreads: Foundation's `Thread.name` setter may not reach the
        // kernel when it runs before the parent has recorded the new thread's handle, and a Linux
        // thread starts with its creator's name (often a cooperative-pool thread's).
        setCurrentThreadName(name)
        let executor = asUnownedTaskExecutor()
        while let job = nextJob() {
            job.runSynchronously(on: executor)
        }
    }

    /// The next job, waiting up to `idleSeconds` for one; nil when the thread should end.
    private func nextJob() -> UnownedJob? {
        condition.lock()
        defer { condition.unlock() }
        while queue.isEmpty {
            idle += 1
            let signalled = condition.wait(until: Date(timeIntervalSinceNow: idleSeconds))
            idle -= 1
            if !signalled && queue.isEmpty {
                threads -= 1
                return nil
            }
        }
        return queue.removeFirst()
    }
}

/// Names the calling thread as the kernel and debuggers see it (Linux keeps 15 bytes).
///
/// On Linux not through Foundation's `Thread.name`: its setter there names the thread only once
/// the parent's `start()` has recorded the thread's handle, so a thread that names itself first
/// keeps its creator's name (a Linux thread starts with it) — 57 of 2,000 new threads in a small
/// program. Swift's Glibc module does not declare pthread_setname_np (a GNU extension); the
/// kernel's own file for the calling thread's name is the same call.
package func setCurrentThreadName(_ name: String) {
    #if os(Linux) && !ONDEVICE_PORTABLE_CHECK
    let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
    guard fd >= 0 else { return }
    defer { close(fd) }
    let bytes = Array(name.utf8.prefix(15))
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    #else
    Thread.current.name = name
    #endif
}

/// The calling thread's name as the kernel has it ("" when it cannot be read).
package func currentThreadName() -> String {
    #if os(Linux) && !ONDEVICE_PORTABLE_CHECK
    guard let text = try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8) else { return "" }
    return text.trimmingCharacters(in: .newlines)
    #else
    return Thread.current.name ?? ""
    #endif
}
