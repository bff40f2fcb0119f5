/// A stream that stops at its consumer's cancellation: once the consuming task is cancelled,
/// `next()` ends the sequence instead of handing out events the producer buffered before it
/// noticed. `AsyncThrowingStream` alone drains its buffer first, so a consumer that was slow to
/// be scheduled would still see a whole answer, `finished` included, after cancelling.
package struct CancellableStream<Element: Sendable>: AsyncSequence, Sendable {
    package typealias Failure = any Error
    private let base: AsyncThrowingStream<Element, any Error>

    package init(_ base: AsyncThrowingStream<Element, any Error>) { self.base = base }

    package func makeAsyncIterator() -> Iterator { Iterator(base: base.makeAsyncIterator()) }

    package struct Iterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<Element, any Error>.Iterator
        var done = false

        package mutating func next() async throws -> Element? {
            if done { return nil }
            if Task.isCancelled {
                // A cancelled task's `next` runs the stream's termination handler (which stops
                // the producer) at once; whatever it returns is dropped.
                done = true
                _ = try? await base.next()
                return nil
            }
            let element = try await base.next()
            if element == nil { done = true }
            return element
        }
    }
}
