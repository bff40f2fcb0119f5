import EngineSupport
import Foundation
import Platform
import Retrieval
import TextGeneration
import Tokenizers

extension DocumentLibrary {
    /// Answers `question` from the library's best passages with a chat model, streamed, citing
    /// the passages it was given. The passages go to the model as message text (never control
    /// tokens) through the same text core as every chat.
    ///
    /// ```swift
    /// for try await event in library.ask("What did we decide about the budget?") {
    ///     if case .partial(let text) = event { print(text, terminator: "") }
    /// }
    /// ```
    public func ask(_ question: String, options: AskOptions = AskOptions()) -> AsyncThrowingStream<AnswerEvent, Error> {
        let (stream, continuation) = AsyncThrowingStream<AnswerEvent, Error>.makeStream()
        let task = Task.detached { [self] in
            do {
                try await answer(question, options: options, continuation)
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        // Stops at the consumer's cancellation instead of draining what the producer buffered.
        let events = AnswerIterator(stream)
        return AsyncThrowingStream { try await events.next() }
    }

    private func answer(_ question: String, options: AskOptions, _ out: AsyncThrowingStream<AnswerEvent, Error>.Continuation) async throws {
        guard options.passages > 0 else { throw OnDeviceError.invalidArgument("passages \(options.passages): expected at least 1") }
        let found = try await search(question, count: options.passages)
        try Task.checkCancellation()
        let citations = found.passages.enumerated().map { AnswerCitation(number: $0.offset + 1, passage: $0.element) }
        let instructions = options.instructions, text = options.text
        let messages: @Sendable (Int) -> [ChatMessage] = { count in
            let user = RAGPrompt.userMessage(question: question, passages: citations.prefix(count).map {
                (number: $0.number, text: $0.passage.text, metadata: $0.passage.metadata)
            })
            return [ChatMessage(role: .system, content: instructions), ChatMessage(role: .user, content: user)]
        }
        // The chat core on a pooled session: the prompt keeps as many passages, best first, as
        // leave room for `maxTokens` in the session's context.
        let kept = Locked<Int>(0)
        let model = options.model ?? ai.textModel.id
        let events = ai.pacedTextStream(model: model, adapters: text.adapters, readAhead: nil) { session, context in
            var count = citations.count
            while count > 0, try TextInput.chat(messages(count)).ids(session.model).count + text.maxTokens > session.contextLength {
                count -= 1
            }
            kept.withLock { $0 = count }
            let runner = TextRunner(session: session, context: context, options: text)
            return TextResult(try runner.generate(.chat(messages(count)), stream: true))
        }.events
        var announced = false
        for try await event in events {
            try Task.checkCancellation()
            if !announced {
                out.yield(.retrieved(Array(citations.prefix(kept.withLock { $0 })), method: found.method))
                announced = true
            }
            switch event {
            case .partial(let piece): out.yield(.partial(piece))
            case .finished(let result):
                let given = Array(citations.prefix(kept.withLock { $0 }))
                out.yield(.finished(GroundedAnswer(text: result.text, citations: given, method: found.method, result: result)))
            case .progress: break
            }
        }
    }
}

/// The consumer's side of `ask`: `AsyncThrowingStream` alone would hand out every buffered event
/// (a whole answer, `finished` included) to a consumer that cancelled while it was behind.
/// `@unchecked Sendable`: one consumer iterates (the unfolding stream's contract), so the
/// iterator is never used by two tasks at once.
private final class AnswerIterator: @unchecked Sendable {
    private var iterator: CancellableStream<AnswerEvent>.Iterator

    init(_ stream: AsyncThrowingStream<AnswerEvent, Error>) { iterator = CancellableStream(stream).makeAsyncIterator() }

    func next() async throws -> AnswerEvent? { try await iterator.next() }
}
