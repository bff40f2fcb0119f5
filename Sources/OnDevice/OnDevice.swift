import Engine
import Foundation
import ModelStore

/// The on-device AI kit: one instance per program (no singleton), built once with its
/// configuration, then used from any task.
///
/// ```swift
/// let ai = try OnDevice()
/// let summary = try await ai.summarize(longText)
/// for try await event in ai.generateStream("Write a haiku about rain") {
///     if case .partial(let text) = event { print(text, terminator: "") }
/// }
/// ```
public final class OnDevice: Sendable {
    /// How an instance is built. Every field has a production default.
    public struct Configuration: Sendable {
        /// The language model for text ops: a catalog id or a path to a GGUF file.
        public var textModel: String = Op.generate.defaultModelId
        /// Model store root; nil uses `ONDEVICE_HOME`, else the XDG data directory.
        public var storeRoot: String?
        /// Kernel threads; nil uses every core.
        public var threads: Int?
        /// Context length of text sessions; nil uses min(model context, 4096).
        public var contextLength: Int?

        public init() {}
    }

    public let configuration: Configuration
    let provider: TextModelProvider

    /// Builds the instance. Nothing is loaded or downloaded until an op needs it.
    public init(configuration: Configuration = Configuration()) throws {
        self.configuration = configuration
        var storeConfiguration = StoreConfiguration.fromEnvironment()
        if let root = configuration.storeRoot { storeConfiguration.root = root }
        let store = try ModelStore(configuration: storeConfiguration)
        provider = TextModelProvider(store: store, threads: configuration.threads, contextLength: configuration.contextLength)
    }

    /// Runs `body` in a producer task with a lent session, streaming its events. Cancelling the
    /// consumer cancels the producer within one token; the session goes back to the pool when
    /// the producer ends, however it ends.
    func textStream(model: String? = nil,
                    _ body: @escaping @Sendable (Session, TextOpContext) throws -> TextResult) -> AsyncThrowingStream<TextEvent, Error> {
        let (stream, continuation) = AsyncThrowingStream<TextEvent, Error>.makeStream()
        let reference = model ?? configuration.textModel
        let provider = self.provider
        let task = Task.detached {
            let lent: LentSession
            do { lent = try await provider.checkOut(reference) } catch {
                continuation.finish(throwing: error)
                return
            }
            do {
                let result = try body(lent.session, TextOpContext(continuation: continuation))
                continuation.yield(.finished(result))
                continuation.finish()
            } catch let error as EngineError {
                continuation.finish(throwing: OnDeviceError(error))
            } catch {
                continuation.finish(throwing: error)
            }
            await provider.checkIn(lent, reference: reference)
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// Consumes a text stream to its final result.
    func collect(_ stream: AsyncThrowingStream<TextEvent, Error>) async throws -> TextResult {
        for try await event in stream {
            if case .finished(let result) = event { return result }
        }
        throw OnDeviceError.cancelled
    }
}

/// What an op's body uses to report partial text and progress.
struct TextOpContext: Sendable {
    let continuation: AsyncThrowingStream<TextEvent, Error>.Continuation

    func partial(_ text: String) {
        if !text.isEmpty { continuation.yield(.partial(text)) }
    }

    func progress(_ done: Int, of total: Int, _ stage: String) {
        continuation.yield(.progress(OpProgress(completedSteps: done, totalSteps: total, stage: stage)))
    }
}
