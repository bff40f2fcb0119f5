import Kernels
import Platform
import Testing

/// Counts per part, written from whichever thread runs the part.
private final class PartCounts: Sendable {
    let counts: Locked<[Int]>
    init(_ parts: Int) { counts = Locked(Array(repeating: 0, count: parts)) }
    func hit(_ part: Int) { counts.withLock { $0[part] += 1 } }
    var values: [Int] { counts.withLock { $0 } }
}

@Test func `every part of a split runs exactly once, job after job`() {
    for parts in [2, 3, 7, 64, 1000] {
        for _ in 0..<50 {
            let counts = PartCounts(parts)
            ComputePool.run(threads: 2, parts: parts) { counts.hit($0) }
            #expect(counts.values == Array(repeating: 1, count: parts), "\(parts) parts")
        }
    }
    #expect(ComputePool.workers >= 1)
}

@Test func `a split inside a part runs on that part's thread`() {
    let inner = PartCounts(8 * 4)
    ComputePool.run(threads: 4, parts: 8) { outer in
        ComputePool.run(threads: 4, parts: 4) { inner.hit(outer * 4 + $0) }
    }
    #expect(inner.values == Array(repeating: 1, count: 32))
}

@Test func `callers on several threads all finish with every part run once`() async {
    // One caller holds the pool; the others run their parts themselves. None may wait forever
    // or lose a part.
    let results = await withTaskGroup(of: [Int].self) { group in
        for caller in 0..<6 {
            group.addTask {
                let counts = PartCounts(16)
                for _ in 0..<200 { ComputePool.run(threads: 2 + caller % 3, parts: 16) { counts.hit($0) } }
                return counts.values
            }
        }
        return await group.reduce(into: []) { $0.append($1) }
    }
    #expect(results.count == 6)
    for values in results { #expect(values == Array(repeating: 200, count: 16)) }
}

@Test func `a split after the workers went to sleep still runs every part`() async throws {
    ComputePool.run(threads: 2, parts: 2) { _ in }
    try await Task.sleep(for: .milliseconds(30))  // past the workers' spin, so they sleep
    let counts = PartCounts(5)
    ComputePool.run(threads: 2, parts: 5) { counts.hit($0) }
    #expect(counts.values == Array(repeating: 1, count: 5))
}
