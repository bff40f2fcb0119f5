import Foundation
import Platform
import Server
import Testing

/// A connection thread waits for public-API work with `blockingAwait(cancelWhen:)`; when its
/// client leaves, the work is cancelled rather than run to its end (the public ops stop at
/// their next check: `SpeechEmbeddingOpsTests` holds transcription to that).
@Suite struct BlockingAwaitTests {
    @Test func `the work is cancelled once the client has left, and finishes when it stays`() throws {
        let left = Locked(false)
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(200)) { left.withLock { $0 = true } }
        do {
            // An hour of waiting: only cancellation ends it.
            _ = try blockingAwait(cancelWhen: { left.withLock { $0 } }) { try await Task.sleep(for: .seconds(3600)) }
            Issue.record("the work ran to its end after the client left")
        } catch is CancellationError {}
        #expect(try blockingAwait(cancelWhen: { false }) { 42 } == 42)
    }
}
