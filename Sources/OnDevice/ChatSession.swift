import Platform
import Synchronization

/// A conversation with one text model that keeps its place. Each turn adds the user's message
/// and the model's answer to the session's messages, and the session keeps its own KV cache
/// between turns, so a turn evaluates only what is new — however many other ops and sessions use
/// the same model meanwhile. The cache lives with the resident model: when the model is evicted
/// the next turn evaluates the conversation again (slower, never wrong).
///
/// ```swift
/// let chat = ai.textModel.session(system: "You are terse.")
/// print(try await chat.respond(to: "Name a planet.").text)
/// print(try await chat.respond(to: "Another one?").text)
/// ```
///
/// One turn at a time: a turn started while another is running waits for it.
public final class ChatSession: Sendable {
    /// The model the conversation is with.
    public let model: TextModel
    /// Options of every turn (sampling, length, adapters).
    public let options: TextOptions
    private let state: Locked<[Message]>
    private let turns = TurnGate()
    /// Finds this conversation's cache again in the model's session pool.
    private let tag: UInt64

    private static let nextTag = Atomic<UInt64>(1)

    init(model: TextModel, system: String?, options: TextOptions) {
        self.model = model
        self.options = options
        self.state = Locked(system.map { [.system($0)] } ?? [])
        self.tag = Self.nextTag.wrappingAdd(1, ordering: .relaxed).oldValue
    }

    /// The conversation so far (the system message first, if any).
    public var messages: [Message] { state.withLock { $0 } }

    /// Adds `text` as the user's turn and returns the model's answer, which joins the conversation.
    public func respond(to text: String) async throws -> TextResult {
        try await model.ai.collect(respondStream(to: text))
    }

    /// Streaming `respond(to:)`. The answer joins the conversation once the stream finishes; a
    /// cancelled or failed turn leaves the conversation as it was.
    public func respondStream(to text: String) -> AsyncThrowingStream<TextEvent, Error> {
        let (stream, continuation) = AsyncThrowingStream<TextEvent, Error>.makeStream()
        let task = Task {
            await turns.enter()
            defer { Task { await turns.leave() } }
            let conversation = state.withLock { $0 } + [.user(text)]
            let options = self.options
            let turn = model.ai.pacedTextStream(model: model.id, owner: tag, adapters: options.adapters, readAhead: nil) { session, context in
                let runner = TextRunner(session: session, context: context, options: options)
                return TextResult(try runner.generate(.chat(conversation.map(\.chatMessage)), stream: true))
            }
            do {
                for try await event in turn.events {
                    if case .finished(let result) = event, result.metrics.finishReason != .cancelled {
                        state.withLock { $0 = conversation + [.assistant(result.text)] }
                    }
                    continuation.yield(event)
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// Forgets every turn (the system message stays).
    public func reset() {
        state.withLock { messages in messages.removeAll { $0.role != .system } }
    }
}

/// Lets one turn of a chat session run at a time, in arrival order.
private actor TurnGate {
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func enter() async {
        if !busy {
            busy = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func leave() {
        if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
    }
}
