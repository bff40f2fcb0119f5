import EngineSupport
import Models
import Runtime
import StructuredOutput
import TextGeneration
import Tools

extension TextModel {
    /// Runs `request` as a server runs one client's request: the model leased through the
    /// runtime (loaded on first use, kept for `serving.keepAliveSeconds`), a session from its pool
    /// — whose decoding shares forward passes with every other request on the model when
    /// `serving.batching` is on — and each of the request's choices in turn on that session,
    /// through the same text core as every op. Tool calls are returned, never run.
    ///
    /// Events come as they happen (see `CompletionEvent`). A consumer that stops listening, or
    /// cancels its task, stops decoding at the next token and gives the session and lease back;
    /// the stream then ends without the remaining `finished` events. `cancelWhen`, polled before
    /// every token, stops it the same way while the consumer keeps reading to the stream's end,
    /// which then comes once the session and lease are back (a server that must not admit the
    /// next request before this one has let go).
    ///
    /// ```swift
    /// var request = CompletionRequest(.chat([.user("What is 6 times 7?")]), output: .tools([.calculate], use: .auto))
    /// request.options.temperature = 0
    /// for try await event in ai.textModel.completions(request) {
    ///     if case .finished(let reply) = event { print(reply.toolCalls) }  // [calculate {"expression":"6*7"}]
    /// }
    /// ```
    public func completions(_ request: CompletionRequest, serving: TextServingOptions = TextServingOptions(),
                            cancelWhen: @escaping @Sendable () -> Bool = { false }) -> AsyncThrowingStream<CompletionEvent, Error> {
        let (stream, continuation) = AsyncThrowingStream<CompletionEvent, Error>.makeStream()
        let model = self
        // On the instance's own threads, so requests are served even while an app's work holds
        // every thread of Swift's cooperative pool.
        let task = Task(executorPreference: OwnThreadsExecutor.shared) {
            do {
                try await model.serve(request, serving: serving, cancelWhen: cancelWhen, continuation)
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// The serving figures of this model while it is loaded (nil when it is not); never loads it.
    public func servingStatus() async throws -> TextServingStatus? {
        let residency = try await ai.runtime().residency
        guard let resident = await residency.resident(id) as? ResidentLanguageModel else { return nil }
        let budget = await residency.budget
        let batching = resident.batchingFigures
        var status = TextServingStatus(kvCacheBytes: resident.sessionStateBytes,
                                       kvBudgetBytes: max(0, resident.sessionRoom(budget: budget)),
                                       sessions: resident.sessionCounts.live, batchSteps: batching.steps,
                                       batchSequences: batching.sequences, batchRows: batching.rows,
                                       batchSizes: batching.batchSizes, batchBounds: batching.batchBounds)
        status.batchBusySeconds = batching.busySeconds
        let cache = resident.promptCache.figures
        (status.promptCacheEntries, status.promptCacheBytes, status.promptCacheCapacity) = (cache.entries, cache.bytes, cache.capacity)
        (status.promptCacheHits, status.promptCacheTokens) = (cache.hits, cache.restoredTokens)
        return status
    }

    private func serve(_ request: CompletionRequest, serving: TextServingOptions, cancelWhen: @escaping @Sendable () -> Bool,
                       _ continuation: AsyncThrowingStream<CompletionEvent, Error>.Continuation) async throws {
        guard request.choices >= 1 else { throw OnDeviceError.invalidArgument("CompletionRequest.choices must be at least 1") }
        try TextOptions.checkLogprobs(request.options.logprobs)
        let runtime = try await ai.runtime()
        let options = ai.textLoadOptions(runtime, contextLength: serving.contextLength, threads: serving.threads)
        // The same lease, session pool and compute thread as every text op, with the caller's
        // context, threads and keep-alive.
        try await ai.withTextSession(model: id, options: options, keepAlive: serving.keepAliveSeconds.map(KeepAlive.init(seconds:)),
                                     adapters: request.options.adapters, leased: { lease in
            // Admission: how many sessions fit the budget beside the model; as many idle ones
            // (up to what the caller runs at once) stay for the next request.
            let resident = lease.lease.model
            resident.batching = serving.batching
            let budget = await runtime.residency.budget
            let limit = resident.sessionLimit(budget: budget, contextLength: options.contextLength)
            resident.maxIdleSessions = max(resident.maxIdleSessions, min(limit, serving.maxRunning))
            // The prompt cache gets what the budget leaves once that many sessions fit.
            let sessions = min(limit, serving.maxRunning) * resident.sessionBytes(contextLength: options.contextLength)
            let room = resident.sessionRoom(budget: budget) - sessions
            resident.promptCache.capacity = max(0, min(serving.promptCacheBytes, room))
            continuation.yield(.admitted(sessionLimit: limit))
        }, prompt: { lease in
            // The prompt as the first choice will send it, so a client that sends its
            // conversation again finds the session holding it (a request that fails to plan
            // fails the same way in the body).
            guard let job = try? Self.job(request, adapters: []) else { return nil }
            return try? TextCore.plan(job, model: lease.model, contextLength: lease.contextLength).prompt
        }) { session, lease, adapters, cancellation in
            try Self.run(request, job: try Self.job(request, adapters: adapters), on: session,
                         isCancelled: { cancellation.isCancelled || cancelWhen() }, report: { lease.report($0) }, continuation)
        }
    }

    /// Each choice of `request` in turn on `session`; stops quietly when cancelled.
    private static func run(_ request: CompletionRequest, job: TextJob, on session: Session, isCancelled: () -> Bool,
                            report: (GenerationMetrics) -> Void, _ continuation: AsyncThrowingStream<CompletionEvent, Error>.Continuation) throws {
        for choice in 0..<request.choices {
            var pending: [TokenLogprob] = []
            let outcome: TextOutcome
            do throws(EngineError) {
                var plan = try TextCore.plan(job, model: session.model, contextLength: session.contextLength)
                plan.options.sampling = plan.options.sampling.choice(choice)
                outcome = try TextCore.run(plan, on: session, isCancelled: isCancelled,
                                           onStart: { continuation.yield(.started(choice: choice)) },
                                           onText: { text in
                                               continuation.yield(.text(text, tokens: pending.map(GeneratedToken.init)))
                                               pending.removeAll()
                                           },
                                           onLogprobs: { pending += $0 })
            } catch {
                throw OnDeviceError(error)
            }
            if outcome.isCancelled { return }
            report(outcome.result.metrics)
            let calls: [Message.ToolCall] = outcome.calls.compactMap {
                if case .call(let call) = $0 { Message.ToolCall(name: call.name, arguments: call.arguments.serialized) } else { nil }
            }
            continuation.yield(.finished(Completion(choice: choice, text: outcome.content, toolCalls: calls,
                                                    finishReason: FinishReason(outcome.finishReason), result: TextResult(outcome))))
        }
    }

    /// The engine's job for `request`, with its adapters loaded.
    private static func job(_ request: CompletionRequest, adapters: [ScaledAdapter]) throws -> TextJob {
        let input: TextInput = switch request.input {
        case .chat(let messages): .chat(messages.map(\.chatMessage))
        case .raw(let text): .raw(text, parseSpecial: request.options.parseSpecialTokens)
        case let .user(text, system): .user(text, system: system)
        }
        var options = request.options.generation
        options.adapters = adapters
        var job = TextJob(input, options: options, overflow: request.options.overflow == .keepEnd ? .keepEnd : .refuse)
        switch request.output {
        case .text:
            break
        case .json(let schema):
            do { job.output = .schema(try JSONSchema(json: schema)) } catch {
                throw OnDeviceError.invalidArgument("the JSON Schema of the output: \(error)")
            }
        case let .tools(tools, use):
            job.tools = ToolRegistry(tools.map(\.engineTool))
            switch use {
            case .describeOnly:
                break  // with text output the core stops where a call would open
            case .auto, .required:
                job.output = .toolCall(required: use == .required)
                job.maxCalls = max(1, request.maxCallsPerReply)
            case .only(let name):
                job.output = .toolCall(required: true)
                job.callableTool = name
                job.maxCalls = max(1, request.maxCallsPerReply)
            }
        }
        return job
    }
}
