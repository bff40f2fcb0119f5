import Models
import TextGeneration

/// An op's hold on the text backend's model: the model stays resident until `release`, and
/// `withSession` lends the op a session (KV cache) from the model's pool.
package final class TextGenerationLease: Sendable {
    /// The backend the model was leased for.
    package let backend: TextGenerationBackend
    /// The feature's backend generation when the lease was taken.
    package let generation: UInt64
    package let lease: Lease<ResidentLanguageModel>
    private let reporter: @Sendable (GenerationMetrics, TextGenerationLease) -> Void

    init(backend: TextGenerationBackend, generation: UInt64, lease: Lease<ResidentLanguageModel>,
         reporter: @escaping @Sendable (GenerationMetrics, TextGenerationLease) -> Void) {
        self.backend = backend
        self.generation = generation
        self.lease = lease
        self.reporter = reporter
    }

    /// Reports one finished model call: its metrics go to the event bus, and the feature's status
    /// becomes ready (unless the backend was swapped meanwhile).
    package func report(_ metrics: GenerationMetrics) { reporter(metrics, self) }

    package var model: LanguageModel { lease.model.model }

    /// The context length of the sessions `withSession` gives.
    package var contextLength: Int { backend.options.contextLength }

    /// Runs `body` on a session sized for the backend's context and threads. The session comes
    /// back to the pool afterwards, keeping its cache so the next op can reuse a shared prefix.
    /// A session `owner` (a chat session's tag) checked in before comes back with its cache;
    /// without one, the idle session sharing the longest prefix with `prompt` (when given, run
    /// with `adapters`; the prompt cache may copy more of it in).
    package func withSession<T>(owner: UInt64? = nil, prompt: [Int32]? = nil, adapters: [ScaledAdapter] = [],
                                _ body: (Session) throws -> T) rethrows -> T {
        let slot = lease.model.checkOut(contextLength: backend.options.contextLength, threads: backend.options.threads,
                                        owner: owner, prompt: prompt, adapters: adapters)
        defer { lease.model.checkIn(slot) }
        return try body(slot.session)
    }

    /// Ends the lease; `keepAlive` overrides the one it was taken with.
    package func release(keepAlive: KeepAlive? = nil) async { await lease.release(keepAlive: keepAlive) }
}
