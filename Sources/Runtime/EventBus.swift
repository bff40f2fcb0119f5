import Platform
import Synchronization

/// Fans typed events out to any number of subscribers, each with its own bounded buffer. A slow
/// subscriber never blocks a publisher: when its buffer is full the oldest event is dropped and
/// counted, and `publish` returns at once. Subscribers leave when they stop iterating.
package final class EventBus<Event: Sendable>: Sendable {
    private struct Subscriber {
        var continuation: AsyncStream<Event>.Continuation
        var drops: DropCounter
    }
    private struct State {
        var nextId = 0
        var subscribers: [Int: Subscriber] = [:]
    }
    private let state = Locked(State())
    private let totalDrops = DropCounter()
    /// Buffer of a subscription made without an explicit size.
    package let defaultBufferSize: Int

    package init(defaultBufferSize: Int = 256) {
        self.defaultBufferSize = max(1, defaultBufferSize)
    }

    /// A new subscription; it receives events published from now on.
    package func subscribe(bufferSize: Int? = nil) -> EventSubscription<Event> {
        let (stream, continuation) = AsyncStream<Event>.makeStream(bufferingPolicy: .bufferingNewest(max(1, bufferSize ?? defaultBufferSize)))
        let drops = DropCounter()
        let id = state.withLock { s in
            defer { s.nextId += 1 }
            s.subscribers[s.nextId] = Subscriber(continuation: continuation, drops: drops)
            return s.nextId
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return EventSubscription(events: stream, drops: drops)
    }

    /// Delivers `event` to every subscriber without waiting for any of them.
    package func publish(_ event: Event) {
        let targets = state.withLock { Array($0.subscribers.values) }
        for target in targets {
            if case .dropped = target.continuation.yield(event) {
                target.drops.increment()
                totalDrops.increment()
            }
        }
    }

    package var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    /// Events dropped across all subscribers since the bus was made.
    package var droppedEvents: Int { totalDrops.value }

    /// Ends every subscription (their loops finish after the buffered events).
    package func finish() {
        let targets = state.withLock { s in
            defer { s.subscribers.removeAll() }
            return Array(s.subscribers.values)
        }
        for target in targets { target.continuation.finish() }
    }
}

/// One subscriber's stream and its drop count.
package struct EventSubscription<Event: Sendable>: AsyncSequence, Sendable {
    package typealias Element = Event
    package let events: AsyncStream<Event>
    fileprivate let drops: DropCounter

    /// Events this subscriber lost because its buffer was full.
    package var dropped: Int { drops.value }

    package func makeAsyncIterator() -> AsyncStream<Event>.Iterator { events.makeAsyncIterator() }
}

/// A shared counter of dropped events.
final class DropCounter: Sendable {
    private let count = Atomic<Int>(0)
    func increment() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}
