import Foundation

/// Lets a producer thread run at most `limit` events ahead of its consumer: a generation whose
/// reader stalls (a slow UI, a blocked socket, a starved task) pauses instead of decoding the
/// whole answer into a buffer nobody reads, and cancellation then costs at most `limit` tokens.
/// The producer blocks in `waitForRoom` (it is on a compute thread of its own, never on Swift's
/// cooperative pool); the consumer's side calls `consumed` per event taken; `cancel` wakes the
/// producer for good.
package final class DemandGate: @unchecked Sendable {
    // `@unchecked Sendable`: `ahead` and `cancelled` are only touched under `condition`'s lock.
    private let condition = NSCondition()
    private var ahead = 0
    private var cancelled = false
    package let limit: Int

    package init(limit: Int) {
        precondition(limit > 0, "a demand gate needs room for at least one event")
        self.limit = limit
    }

    /// Blocks until the consumer is fewer than `limit` events behind (or the gate is cancelled),
    /// then counts one more event in flight.
    package func waitForRoom() {
        condition.lock()
        while ahead >= limit && !cancelled { condition.wait() }
        ahead += 1
        condition.unlock()
    }

    package func consumed() {
        condition.lock()
        ahead = max(0, ahead - 1)
        condition.signal()
        condition.unlock()
    }

    package func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        condition.unlock()
    }
}

/// The consumer's side of a gated stream: takes events from `inner` one `next()` at a time and
/// tells the gate each time. Only the (single) consumer calls `next`, sequentially.
package final class GatedIterator<Element: Sendable>: @unchecked Sendable {
    private var inner: AsyncThrowingStream<Element, Error>.Iterator
    private let gate: DemandGate

    package init(_ stream: AsyncThrowingStream<Element, Error>, gate: DemandGate) {
        inner = stream.makeAsyncIterator()
        self.gate = gate
    }

    package func next() async throws -> Element? {
        let element = try await inner.next()
        if element != nil { gate.consumed() }
        return element
    }
}
