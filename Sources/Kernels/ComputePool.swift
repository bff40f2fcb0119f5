import CKernels

/// Splits work over the process's compute threads (`od_pool_run`): the caller plus pool workers
/// that spin briefly between jobs and then sleep. Unlike `DispatchQueue.concurrentPerform`,
/// a split starts without waking a thread when the previous one ended microseconds ago, which is
/// what the dozens of small row splits of one decoded token need.
package enum ComputePool {
    /// Runs `body(part)` for every part in 0 ..< parts on up to `threads` threads and returns
    /// when all have returned. Parts must be independent of one another. While the pool runs
    /// another job (another session's, or a split inside a part), the parts run here, in order.
    package static func run(threads: Int, parts: Int, _ body: @Sendable (Int) -> Void) {
        guard parts > 1, threads > 1 else {
            for part in 0..<max(0, parts) { body(part) }
            return
        }
        withoutActuallyEscaping(body) { body in
            var task = body
            withUnsafeMutablePointer(to: &task) { pointer in
                od_pool_run(Int64(threads), Int64(parts), { context, part in
                    context!.assumingMemoryBound(to: (@Sendable (Int) -> Void).self).pointee(Int(part))
                }, pointer)
            }
        }
    }

    /// Jobs shared with workers, jobs whose caller stalled on a preempted worker, and jobs run
    /// alone while backing off after a stall, since the process started.
    package struct Counters: Sendable, Equatable {
        package var split: Int
        package var stalls: Int
        package var alone: Int

        package static func - (a: Counters, b: Counters) -> Counters {
            Counters(split: a.split - b.split, stalls: a.stalls - b.stalls, alone: a.alone - b.alone)
        }
    }

    package static var counters: Counters {
        let c = od_pool_stats()
        return Counters(split: Int(c.split), stalls: Int(c.stalls), alone: Int(c.alone))
    }

    /// Pool workers started so far.
    package static var workers: Int { Int(od_pool_workers()) }
}
