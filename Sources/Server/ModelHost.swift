import Foundation
import OnDevice
import Platform

/// The models behind the API: which ids are served, and running a request on one of them
/// through the public API, after the request has passed the model's admission queue. Every
/// model is leased through the runtime's residency cache there (so the memory budget,
/// keep-alive and pressure handling apply).
package final class ModelHost: Sendable {
    /// The public API over the server's runtime: every endpoint goes through it.
    package let ai: OnDeviceAI
    let configuration: ServerConfiguration
    private let queues = Locked<[String: ModelQueue]>([:])
    /// Text requests' counters and histograms, for `GET /metrics`.
    let metrics = ServerMetrics()
    /// The text models requests have run on, for the gauges of `/metrics`.
    private let textModels = Locked<Set<String>>([])
    /// Weights-file headers already read, by path.
    private let headers = Locked<[String: ModelWeights]>([:])
    /// The kinds this server has endpoints for.
    static let servedKinds: Set<ModelInfo.Kind> = [.llm, .embedding, .asr, .tts]

    /// `ai`'s configuration carries the server's threads and context length.
    package init(ai: OnDeviceAI, configuration: ServerConfiguration) {
        self.ai = ai
        self.configuration = configuration
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

    /// Runs a text request on its model through the public API (`TextModel.completions`), the
    /// path every text endpoint (OpenAI's and Ollama's) takes: the model and adapters resolved,
    /// the request's turn in the queue, then each of its `choices` on one pooled session (the
    /// prompt is cached after the first; each choice's seed comes from the request's, so the
    /// whole is reproducible). The model's admission answer (how many sessions fit the memory
    /// budget) holds the queue's running limit. `onStart` gets a choice's index once it has
    /// passed every check, `onLogprobs` the tokens of the text `onText` gets next, `onEnd` the
    /// choice's reply. Returns the replies in order, or nil when the client left; a client that
    /// leaves stops decoding at the next token.
    func generate(_ request: TextRequest, endpoint: String, keepAliveSeconds: Double? = nil, responder: HTTPResponder,
                  onStart: (_ choice: Int) -> Void, onText: (String) -> Void,
                  onLogprobs: ([GeneratedToken]) -> Void = { _ in },
                  onEnd: (Completion) -> Void = { _ in }) throws -> [Completion]? {
        _ = try resolve(request.model, kind: .llm, endpoint: endpoint)
        var completion = request.completion
        var adapters: [(id: String, path: String)] = []
        for choice in request.adapters {
            let path = try adapterPath(choice.id)
            adapters.append((choice.id, path))
            completion.options.adapters.append(LoRA(path: path, scale: choice.scale))
        }
        var serving = TextServingOptions()
        serving.contextLength = configuration.contextLength
        serving.threads = configuration.threads
        serving.batching = configuration.batching
        serving.maxRunning = configuration.maxRunningPerModel
        serving.promptCacheBytes = configuration.promptCacheBytes
        serving.keepAliveSeconds = keepAliveSeconds
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
        var outcomes: [Completion] = []
        do {
            let queue = queue(for: model)
            guard try queue.enter(model: model, isCancelled: { responder.isCancelled }) else {
                metrics.finished(model: model, outcome: "cancelled")
                return nil
            }
            defer { queue.leave() }
            textModels.withLock { _ = $0.insert(model) }
            // The client's leaving, as the decode loop polls it: this thread checks the socket
            // between events and sets it; the stream then ends once the session and lease are
            // back, before the queue admits the next request.
            let left = Locked(false)
            let events = BlockingIterator(ai.textModel(model).completions(completion, serving: serving,
                                                                          cancelWhen: { left.withLock { $0 } }))
            // Never stops reading: after the client left, the rest is drained to the stream's end.
            func noteLeaving() -> Bool {
                if responder.isCancelled { left.withLock { $0 = true } }
                return false
            }
            while let event = try events.next(isCancelled: noteLeaving) {
                _ = noteLeaving()
                if left.withLock({ $0 }) { continue }
                switch event {
                case .admitted(let limit):
                    queue.limitRunning(to: limit)
                case .started(let choice):
                    lastText = nil
                    onStart(choice)
                case let .text(text, tokens):
                    if !tokens.isEmpty { onLogprobs(tokens) }
                    timedText(text)
                case .finished(let reply):
                    onEnd(reply)
                    outcomes.append(reply)
                }
            }
        } catch {
            // A client that hung up ends its request with whatever error the broken stream gave.
            let outcome = if case ServerError.queueFull = error { "rejected" } else if responder.isCancelled { "cancelled" } else { "error" }
            metrics.finished(model: model, outcome: outcome)
            if let error = error as? OnDeviceError { throw ServerError.text(error, model: model, adapters: adapters) }
            throw error
        }
        guard outcomes.count == request.choices, !responder.isCancelled else {
            metrics.finished(model: model, outcome: "cancelled")
            return nil
        }
        for outcome in outcomes {
            metrics.finished(model: model, outcome: outcome.wireFinishReason, promptTokens: outcome.result.metrics.promptTokens,
                             completionTokens: outcome.result.metrics.completionTokens)
        }
        return outcomes
    }

    /// `GET /metrics`: the counters, and the gauges of every text model requests have used.
    func metricsPage() -> String {
        let served = textModels.withLock { $0 }
        var gauges: [String: ServerMetrics.ModelGauges] = [:]
        for id in served {
            var g = ServerMetrics.ModelGauges()
            let queue = queue(for: id)
            (g.running, g.waiting) = queue.counts
            g.runningLimit = queue.runningLimit
            let model = ai.textModel(id)
            if let status = try? blockingAwait({ try await model.servingStatus() }) {
                (g.kvCacheBytes, g.kvBudgetBytes, g.sessions) = (status.kvCacheBytes, status.kvBudgetBytes, status.sessions)
                (g.steps, g.sequences, g.rows, g.batchSizes, g.batchBounds) =
                    (status.batchSteps, status.batchSequences, status.batchRows, status.batchSizes, status.batchBounds)
                (g.promptCacheBytes, g.promptCacheCapacity, g.promptCacheEntries) =
                    (status.promptCacheBytes, status.promptCacheCapacity, status.promptCacheEntries)
                (g.promptCacheHits, g.promptCacheTokens) = (status.promptCacheHits, status.promptCacheTokens)
                g.busySeconds = status.batchBusySeconds
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

    /// Tokens of context each text session gets (the server's `--context`, else the runtime's).
    func textContextLength() throws -> Int {
        let ai = ai
        return try blockingAwait { try await ai.textContextLength() }
    }
}
