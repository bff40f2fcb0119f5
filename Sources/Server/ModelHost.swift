import Foundation
import OnDevice
import Platform
import Runtime

/// The models behind the API: which ids are served, and running a request on one of them. Every
/// model is leased through the runtime's residency cache (so the memory budget, keep-alive and
/// pressure handling apply) after the request has passed the model's admission queue.
package final class ModelHost: Sendable {
    package let runtime: OnDeviceRuntime
    /// The public API over the same runtime, for the endpoints that go through it (speech).
    let ai: OnDeviceAI
    let configuration: ServerConfiguration
    private let queues = Locked<[String: ModelQueue]>([:])
    /// Text requests' counters and histograms, for `GET /metrics`.
    let metrics = ServerMetrics()
    /// The text models requests last ran on, by id, for the gauges of `/metrics` (weakly: an
    /// unloaded model drops out), with the KV budget they were given.
    private let textModels = Locked<[String: ServedTextModel]>([:])
    /// Weights-file headers already read, by path.
    private let headers = Locked<[String: ModelWeights]>([:])
    /// The kinds this server has endpoints for.
    static let servedKinds: Set<ModelInfo.Kind> = [.llm, .embedding, .asr, .tts]

    package init(runtime: OnDeviceRuntime, configuration: ServerConfiguration) {
        self.runtime = runtime
        self.configuration = configuration
        var settings = OnDeviceAI.Configuration()
        settings.threads = configuration.threads
        settings.contextLength = configuration.contextLength
        ai = OnDeviceAI(runtime: runtime, configuration: settings)
    }

    /// Installed models the server offers, in catalog order.
    package func servedModels() async throws -> [ModelInfo] {
        try await ai.modelLibrary().list().filter { model in
            model.state == .installed && Self.servedKinds.contains(model.kind) && (configuration.models.map { $0.contains(model.id) } ?? true)
        }
    }

    /// Installed model `id`, which must be of `kind`. Blocks the connection thread briefly.
    func resolve(_ id: String, kind: ModelInfo.Kind, endpoint: String) throws(ServerError) -> ModelInfo {
        if let allowed = configuration.models, !allowed.contains(id) { throw .modelNotFound(id) }
        guard let found = installed(id) else { throw .modelNotFound(id) }
        guard found.kind == kind else { throw .wrongModelKind(model: id, endpoint: endpoint) }
        return found
    }

    /// Model `id` when it is installed. Blocks the connection thread briefly.
    private func installed(_ id: String) -> ModelInfo? {
        let ai = ai
        guard let found = try? blockingAwait({ try await ai.modelLibrary().info(id) }), found.state == .installed else { return nil }
        return found
    }

    /// The Piper voice a speech request names. OpenAI clients send a model such as `tts-1` and a
    /// voice such as `alloy`; here either may name an installed voice (`voice` first), and a
    /// voice name that is not one is taken as a speaker name, which a single-speaker voice
    /// answers in its one voice.
    func speechVoice(model: String, voice: String?) throws(ServerError) -> String {
        if let voice, !voice.isEmpty, let found = try? resolve(voice, kind: .tts, endpoint: "/v1/audio/speech") { return found.id }
        return try resolve(model, kind: .tts, endpoint: "/v1/audio/speech").id
    }

    /// The file behind a request's `lora` id: an existing file, or an installed store artifact of
    /// kind lora (the same two forms the CLI's `--lora` takes). Blocks the connection thread briefly.
    /// Clients on this machine may name an adapter file; a server reachable from elsewhere
    /// takes store ids only, so remote clients cannot probe (or load) arbitrary paths.
    func adapterPath(_ id: String) throws(ServerError) -> String {
        var isDirectory: ObjCBool = false
        if configuration.isLoopback, FileManager.default.fileExists(atPath: id, isDirectory: &isDirectory),
           !isDirectory.boolValue {
            return id
        }
        guard let found = installed(id), found.kind == .lora,
              let path = found.firstPath(withSuffix: ".gguf") ?? found.files.first?.path else { throw .adapterNotFound(id) }
        return path
    }

    package func queue(for id: String) -> ModelQueue {
        queues.withLock { q in
            if let existing = q[id] { return existing }
            let made = ModelQueue(maxRunning: configuration.maxRunningPerModel, maxWaiting: configuration.maxWaitingPerModel)
            q[id] = made
            return made
        }
    }

    /// Runs `body` on model `id`, leased through the runtime's engines (the same loaders every
    /// door uses) after waiting its turn. Returns nil when the client left while waiting.
    ///
    /// `keepAliveSeconds` (Ollama's `keep_alive`, with its signs: 0 unloads when the request ends,
    /// negative keeps until memory is needed) goes with the lease to the residency cache, where
    /// the latest lease on a model decides how long it stays idle; nil uses the runtime's default.
    func withModel<Model: ResidentModel, T>(_ type: Model.Type, _ id: String, options: LoadOptions, keepAliveSeconds: Double? = nil,
                                            responder: HTTPResponder, _ body: (Model) throws -> T) throws -> T? {
        let queue = queue(for: id)
        guard try queue.enter(model: id, isCancelled: { responder.isCancelled }) else { return nil }
        defer { queue.leave() }
        let runtime = runtime
        let keepAlive = keepAliveSeconds.map(KeepAlive.init(seconds:))
        let lease: EngineLease<Model>
        do {
            lease = try blockingAwait { try await runtime.lease(Model.self, modelId: id, options: options, keepAlive: keepAlive) }
        } catch let error as RuntimeError {
            throw ServerError.modelFailed(model: id, reason: error.description)
        }
        defer { try? blockingAwait { await lease.release() } }
        return try body(lease.model)
    }

    /// Runs `body`, a public-API call on model `id`, after waiting the model's turn in its queue
    /// (the call leases the model itself); a client that leaves cancels it. Returns nil when the
    /// client left, waiting or running.
    func withTurn<T: Sendable>(on id: String, responder: HTTPResponder, _ body: @escaping @Sendable () async throws -> T) throws -> T? {
        let queue = queue(for: id)
        guard try queue.enter(model: id, isCancelled: { responder.isCancelled }) else { return nil }
        defer { queue.leave() }
        do {
            return try blockingAwait(cancelWhen: { responder.isCancelled }, body)
        } catch let error as OnDeviceError where error.code == .cancelled && responder.isCancelled {
            return nil
        }
    }

    /// Embeds `inputs` with model `id` through the public API, the path every embeddings endpoint
    /// (OpenAI's and Ollama's) takes: each input's vector and the tokens it took. An input over
    /// the model's sequence limit keeps its first tokens, or with `truncate` false is a 400
    /// naming it. Returns nil when the client left while waiting.
    func embed(_ inputs: [String], model id: String, endpoint: String, truncate: Bool = true, keepAliveSeconds: Double? = nil,
               responder: HTTPResponder) throws -> [(vector: [Float], tokens: Int)]? {
        _ = try resolve(id, kind: .embedding, endpoint: endpoint)
        let options = EmbedOptions(overflow: truncate ? .truncate : .refuse, model: id, keepAliveSeconds: keepAliveSeconds)
        let ai = ai
        let result: TextEmbeddings?
        do {
            result = try withTurn(on: id, responder: responder) { try await ai.embeddings(inputs, options: options) }
        } catch let error as OnDeviceError where error.code == .inputTooLong {
            throw ServerError.invalidRequest("\(error.message) (truncate is off)", param: "input")
        } catch let error as OnDeviceError {
            throw ServerError.modelFailed(model: id, reason: error.message)
        }
        return result?.embeddings.map { ($0.vector, $0.tokenSequences.reduce(0) { $0 + $1.count }) }
    }

    /// Runs a text request through the text core on its model, the path every text endpoint
    /// (OpenAI's and Ollama's) takes: the model and adapters resolved, the request's turn in the
    /// queue, a lease (with `keepAliveSeconds`, see `withModel`), a pooled session with exactly
    /// the request's adapters, then `TextRun` for each of the request's `choices`, one after
    /// another on that session (the prompt is cached after the first; each choice's seed comes
    /// from the request's, so the whole is reproducible). `onStart` gets a choice's index once it
    /// has passed every check, `onLogprobs` the tokens of the text `onText` gets next, `onEnd` the
    /// choice's outcome. Returns the outcomes in order, or nil when the client left.
    func generate(_ request: TextRequest, endpoint: String, keepAliveSeconds: Double? = nil, responder: HTTPResponder,
                  onStart: (_ choice: Int) -> Void, onText: (String) -> Void,
                  onLogprobs: ([TextRun.Logprob]) -> Void = { _ in },
                  onEnd: (TextRun.Outcome) -> Void = { _ in }) throws -> [TextRun.Outcome]? {
        _ = try resolve(request.model, kind: .llm, endpoint: endpoint)
        var adapterPaths: [String] = []
        for choice in request.adapters { adapterPaths.append(try adapterPath(choice.id)) }
        let options = textOptions
        let metrics = metrics, model = request.model
        let arrived = ContinuousClock.now
        var lastText: ContinuousClock.Instant?
        // Time to first text (queue and load included) and the gaps between pieces, as streamed.
        func timedText(_ text: String) {
            let now = ContinuousClock.now
            if let lastText { metrics.tokenGap(model: model, seconds: (now - lastText).inSeconds) } else {
                metrics.firstToken(model: model, seconds: (now - arrived).inSeconds)
            }
            lastText = now
            onText(text)
        }
        let outcomes: [TextRun.Outcome]?
        do {
            outcomes = try withModel(ResidentLanguageModel.self, request.model, options: options, keepAliveSeconds: keepAliveSeconds,
                                     responder: responder) { resident in
                admitSessions(for: request.model, on: resident, contextLength: options.contextLength)
                let slot = resident.checkOut(contextLength: options.contextLength, threads: options.threads)
                defer { resident.checkIn(slot) }
                // Always set (empty without `lora`): the generator applies exactly these, so a
                // pooled session that last ran with an adapter serves this request as the base.
                var run = request
                run.options.adapters = try OpenAIServer.scaledAdapters(request, paths: adapterPaths, on: resident)
                let text = TextRun(request: run, session: slot.session)
                var outcomes: [TextRun.Outcome] = []
                for choice in 0..<request.choices {
                    lastText = nil
                    guard let outcome = try text.run(choice: choice, isCancelled: { responder.isCancelled },
                                                     onStart: { onStart(choice) }, onText: timedText, onLogprobs: onLogprobs) else { return nil }
                    onEnd(outcome)
                    outcomes.append(outcome)
                }
                return outcomes
            } ?? nil
        } catch {
            // A client that hung up ends its request with whatever error the broken stream gave.
            let outcome = if case ServerError.queueFull = error { "rejected" } else if responder.isCancelled { "cancelled" } else { "error" }
            metrics.finished(model: model, outcome: outcome)
            throw error
        }
        guard let outcomes else {
            metrics.finished(model: model, outcome: "cancelled")
            return nil
        }
        for outcome in outcomes {
            metrics.finished(model: model, outcome: outcome.finishReason, promptTokens: outcome.metrics.promptTokens,
                             completionTokens: outcome.metrics.completionTokens)
        }
        return outcomes
    }

    /// Holds the model's admission to the sessions its KV caches may take: the residency budget
    /// less the model's own bytes, over one session's (its KV cache and scratch). Requests past
    /// it wait their turn in the model's queue (or get 429 when the line is full), so a burst of
    /// clients never allocates more caches than memory holds. The first load sets it; requests
    /// admitted before the model was loaded (at most `maxRunningPerModel`) run.
    private func admitSessions(for id: String, on resident: ResidentLanguageModel, contextLength: Int) {
        resident.batching = configuration.batching
        let residency = runtime.residency
        let budget = (try? blockingAwait { await residency.budget }) ?? Int.max / 2
        let limit = resident.sessionLimit(budget: budget, contextLength: contextLength)
        queue(for: id).limitRunning(to: limit)
        // As many idle sessions as may run: a finished request's cache serves the next request.
        resident.maxIdleSessions = max(resident.maxIdleSessions, min(limit, configuration.maxRunningPerModel))
        let kvBudget = max(0, budget - resident.mappedBytes - resident.heapBytes - resident.adapterBytes)
        textModels.withLock { $0[id] = ServedTextModel(resident, kvBudget: kvBudget) }
    }

    /// `GET /metrics`: the counters, and the gauges of every text model requests have used.
    func metricsPage() -> String {
        let served = textModels.withLock { $0 }
        var gauges: [String: ServerMetrics.ModelGauges] = [:]
        for (id, entry) in served {
            var g = ServerMetrics.ModelGauges()
            let queue = queue(for: id)
            (g.running, g.waiting) = queue.counts
            g.runningLimit = queue.runningLimit
            if let resident = entry.model {
                g.kvCacheBytes = resident.sessionStateBytes
                g.kvBudgetBytes = entry.kvBudget
                g.sessions = resident.sessionCounts.live
                let b = resident.batchingFigures
                (g.steps, g.sequences, g.rows, g.batchSizes, g.batchBounds) = (b.steps, b.sequences, b.rows, b.batchSizes, b.batchBounds)
            }
            gauges[id] = g
        }
        return metrics.render(gauges: gauges)
    }

    /// Loads model `id` (of `kind`) through the public API after waiting its turn, so it stays
    /// for `keepAliveSeconds` (Ollama's empty-prompt request). Returns false when the client left.
    func preload(_ id: String, kind: ModelInfo.Kind, endpoint: String, keepAliveSeconds: Double?, responder: HTTPResponder) throws -> Bool {
        _ = try resolve(id, kind: kind, endpoint: endpoint)
        let ai = ai
        do {
            return try withTurn(on: id, responder: responder) { try await ai.load(id, keepAliveSeconds: keepAliveSeconds) } != nil
        } catch let error as OnDeviceError {
            throw ServerError.modelFailed(model: id, reason: error.message)
        }
    }

    /// Unloads model `id` now if idle, else as soon as its last running request ends (Ollama's
    /// `keep_alive: 0` with an empty prompt).
    func unload(_ id: String, kind: ModelInfo.Kind, endpoint: String) throws(ServerError) {
        _ = try resolve(id, kind: kind, endpoint: endpoint)
        let ai = ai
        do { try blockingAwait { try await ai.unload(id) } } catch { throw .modelFailed(model: id, reason: "\(error)") }
    }

    /// What the residency cache holds now (Ollama's `/api/ps`).
    func residents() throws -> ResidencyStatus {
        let ai = ai
        return try blockingAwait { try await ai.residency() }
    }

    /// A served model as model listings (Ollama's `/api/tags`, `/api/show`) describe it.
    struct ServedModel: Sendable {
        var info: ModelInfo
        /// What its weights file's header says; nil when it has none this build reads.
        var weights: ModelWeights?
    }

    /// The served models of `kinds`, described from the store and their weights files' headers
    /// (read once per file, then cached). Blocks the connection thread briefly.
    func describedModels(kinds: Set<ModelInfo.Kind>) throws -> [ServedModel] {
        let models = try blockingAwait { try await self.servedModels() }.filter { kinds.contains($0.kind) }
        let ai = ai
        return models.map { model in
            guard let path = model.weightsFile?.path else { return ServedModel(info: model) }
            var weights = headers.withLock { $0[path] }
            if weights == nil, let read = try? blockingAwait({ try await ai.modelLibrary().weights(of: model.id) }) {
                weights = read
                headers.withLock { $0[path] = read }
            }
            return ServedModel(info: model, weights: weights)
        }
    }

    /// Options for text sessions: the runtime's text backend, with the server's overrides.
    var textOptions: LoadOptions {
        let backend = runtime.textGeneration.backend.options
        return LoadOptions(contextLength: configuration.contextLength ?? backend.contextLength,
                           threads: configuration.threads ?? backend.threads)
    }
}

/// A text model the server has run requests on (weakly held) and the KV budget it was given.
final class ServedTextModel: Sendable {
    weak let model: ResidentLanguageModel?
    let kvBudget: Int
    init(_ model: ResidentLanguageModel, kvBudget: Int) {
        self.model = model
        self.kvBudget = kvBudget
    }
}
