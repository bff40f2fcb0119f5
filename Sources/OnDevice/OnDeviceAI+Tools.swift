import ModelStore
import Runtime
import StructuredOutput
import TextGeneration
import Tokenizers
import Tools

extension OnDeviceAI {
    /// The model of a chat with tools: the configured text model, else the tool-calling default
    /// (Qwen2.5-Coder-0.5B, whose calls were right on 10 of 10 arithmetic questions).
    var toolModel: TextModel { textModel(configuration.textModel ?? Op.toolCallingModelId) }

    /// `TextModel.chat(_:tools:options:toolOptions:)` on `toolModel`.
    public func chat(_ messages: [Message], tools: [Tool], options: TextOptions = TextOptions(),
                     toolOptions: ToolOptions = ToolOptions()) async throws -> ToolChatResult {
        try await toolModel.chat(messages, tools: tools, options: options, toolOptions: toolOptions)
    }

    /// `TextModel.chatStream(_:tools:options:toolOptions:)` on `toolModel`.
    public func chatStream(_ messages: [Message], tools: [Tool], options: TextOptions = TextOptions(),
                           toolOptions: ToolOptions = ToolOptions()) -> AsyncThrowingStream<ToolChatEvent, Error> {
        toolModel.chatStream(messages, tools: tools, options: options, toolOptions: toolOptions)
    }

    /// `TextModel.toolChatStream` on `toolModel` (tests of the layer above the model).
    package func toolChatStream(_ messages: [Message], tools: [Tool], options: TextOptions, toolOptions: ToolOptions,
                                responder: @escaping @Sendable (Session) throws -> any AssistantResponding)
        -> AsyncThrowingStream<ToolChatEvent, Error> {
        toolModel.toolChatStream(messages, tools: tools, options: options, toolOptions: toolOptions, responder: responder)
    }
}

extension TextModel {
    /// Answers the last message of a conversation, letting the model call `tools` on the way.
    ///
    /// The tools are described in the system prompt (Hermes / ChatML `<tool_call>` convention).
    /// When the model opens a call, the call is constrained to the tools' names and argument
    /// schemas, so it always parses; it is run, its result goes back as a `tool` message, and
    /// the model goes on — until it answers without a call or `toolOptions.maxToolCalls` calls
    /// were made. The result holds the answer, every call with its result, and the transcript.
    public func chat(_ messages: [Message], tools: [Tool], options: TextOptions = TextOptions(),
                     toolOptions: ToolOptions = ToolOptions()) async throws -> ToolChatResult {
        for try await event in chatStream(messages, tools: tools, options: options, toolOptions: toolOptions) {
            if case .finished(let result) = event { return result }
        }
        throw OnDeviceError.cancelled
    }

    /// Streaming `chat(_:tools:)`: answer text as it is decoded, each call and its result, then
    /// the final result. Cancelling the consumer stops decoding (and any further calls) and
    /// gives the model's lease back.
    public func chatStream(_ messages: [Message], tools: [Tool], options: TextOptions = TextOptions(),
                           toolOptions: ToolOptions = ToolOptions()) -> AsyncThrowingStream<ToolChatEvent, Error> {
        let reference = id
        return toolChatStream(messages, tools: tools, options: options, toolOptions: toolOptions) { session in
            do throws(EngineError) { return try SessionResponder(session: session, options: options.generation) } catch {
                guard case .noChatTemplate = error else { throw OnDeviceError(error) }
                throw OnDeviceError.noChatTemplate(model: reference)
            }
        }
    }

    /// The tool chat with the assistant's turns written by `responder` (made on the leased
    /// session): the model in production, a script in tests of this layer.
    package func toolChatStream(_ messages: [Message], tools: [Tool], options: TextOptions, toolOptions: ToolOptions,
                                responder: @escaping @Sendable (Session) throws -> any AssistantResponding)
        -> AsyncThrowingStream<ToolChatEvent, Error> {
        let (stream, continuation) = AsyncThrowingStream<ToolChatEvent, Error>.makeStream()
        guard !messages.isEmpty else {
            continuation.finish(throwing: OnDeviceError.invalidArgument("chat needs at least one message"))
            return stream
        }
        guard toolOptions.maxToolCalls >= 0 else {
            continuation.finish(throwing: OnDeviceError.invalidArgument("maxToolCalls must not be negative"))
            return stream
        }
        let names = tools.map(\.name)
        if let twice = names.first(where: { n in names.filter { $0 == n }.count > 1 }) {
            continuation.finish(throwing: OnDeviceError.invalidArgument("two tools are named \(twice)"))
            return stream
        }
        let registry = ToolRegistry(tools.map(\.engineTool))
        var configured = ToolCallLoop(registry: registry, maxCalls: toolOptions.maxToolCalls)
        configured.requireFirstCall = toolOptions.requireToolCall
        let loop = configured
        let conversation = messages.map(\.chatMessage)
        let task = ai.withLeasedSession(model: id, continuation) { session in
            let outcome = try await loop.run(messages: conversation, responder: try responder(session)) { event in
                switch event {
                case .text(let text): if !text.isEmpty { continuation.yield(.partial(text)) }
                case .call(let call): continuation.yield(.toolCall(name: call?.name, arguments: call.map { ToolArguments($0.arguments) }))
                case .result(let record): continuation.yield(.toolResult(ToolInvocation(record, registry: registry)))
                }
            }
            if outcome.reachedCallLimit && toolOptions.failAtCallLimit {
                throw OnDeviceError.toolCallLimitReached(limit: toolOptions.maxToolCalls)
            }
            var metrics = TextMetrics()
            var perCall: [TextMetrics] = []
            for case let m? in outcome.turns {
                metrics.add(m, first: metrics.modelCalls == 0)
                var one = TextMetrics()
                one.add(m, first: true)
                perCall.append(one)
            }
            return .finished(ToolChatResult(
                text: outcome.answer, toolCalls: outcome.calls.map { ToolInvocation($0, registry: registry) },
                transcript: outcome.messages.map(Message.init), reachedCallLimit: outcome.reachedCallLimit, metrics: metrics,
                callMetrics: perCall))
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

}

extension OnDeviceAI {
    /// Runs `body` in a producer task holding a lease on text model `model` and a session from its
    /// pool, then yields the event it returns and finishes the stream (or finishes it with the
    /// error typed for apps). The session and the lease are given back first, however `body`
    /// ends, so a caller holding the result holds no lease.
    func withLeasedSession<Event: Sendable>(model: String, _ continuation: AsyncThrowingStream<Event, Error>.Continuation,
                                            _ body: @escaping @Sendable (Session) async throws -> Event) -> Task<Void, Never> {
        let runtimeTask = self.runtimeTask
        let reference = model
        return Task.detached {
            let lease: TextGenerationLease
            do {
                lease = try await runtimeTask.value.textGeneration.lease(model: model)
            } catch let error as RuntimeError {
                continuation.finish(throwing: OnDeviceError.modelUnavailable(model: reference, reason: error.description))
                return
            } catch {
                continuation.finish(throwing: error)
                return
            }
            let options = lease.backend.options
            let slot = lease.lease.model.checkOut(contextLength: options.contextLength, threads: options.threads)
            let outcome: Result<Event, Error>
            do {
                outcome = .success(try await body(slot.session))
            } catch let error as EngineError {
                outcome = .failure(OnDeviceError(error))
            } catch is CancellationError {
                outcome = .failure(OnDeviceError.cancelled)
            } catch {
                outcome = .failure(error)
            }
            lease.lease.model.checkIn(slot)
            await lease.release()
            switch outcome {
            case .success(let last):
                continuation.yield(last)
                continuation.finish()
            case .failure(let error):
                continuation.finish(throwing: error)
            }
        }
    }
}
