import EngineSupport
import Foundation
import ModelStore
import Models
import Runtime
import StructuredOutput
import TextGeneration

/// The on-device AI kit: one instance per program (no singleton), built once with its
/// configuration, then used from any task.
///
/// ```swift
/// let ai = OnDeviceAI()
/// let summary = try await ai.summarize(longText)
/// for try await event in ai.generateStream("Write a haiku about rain") {
///     if case .partial(let text) = event { print(text, terminator: "") }
/// }
/// ```
public final class OnDeviceAI: Sendable {
    /// How an instance is built. Every field has a production default.
    public struct Configuration: Sendable {
        /// The language model for text ops: a catalog id, or the id of a model added with
        /// `ondevice models import` / `pull` (any GGUF of a supported architecture). Nil gives
        /// each op the model measured best for it: Qwen2.5-Coder-0.5B for `translate` and chats
        /// with tools, SmolLM2-135M (faster) for the rest.
        public var textModel: String?
        /// The Whisper model of `transcribe` (a catalog id such as `whisper-base-ct2`).
        public var transcriptionModel: String = Op.transcribe.defaultModelId
        /// The voice activity model of `detectSpeech` and `skipSilence`.
        public var voiceActivityModel: String = Op.vad.defaultModelId
        /// The Piper voice of `synthesize`, `speak` and voice sessions (`piper-en_US-joe-medium`).
        public var speechVoice: String = Op.speak.defaultModelId
        /// The embedding model of `embed` (`all-minilm-l6-v2`, `nomic-embed-text-v1.5-f16`).
        public var embeddingModel: String = Op.embed.defaultModelId
        /// The image classifier of `classify` (`efficientnet-lite0`, or a `.pth` checkpoint's path).
        public var imageModel: String = Op.classify.defaultModelId
        /// Model store root; nil uses `ONDEVICE_HOME`, else the XDG data directory.
        public var storeRoot: String?
        /// Base URL of the Hugging Face hub (or a mirror) that downloads use; nil reads
        /// `HF_ENDPOINT`. The kit names no hub host itself.
        public var hubEndpoint: URL?
        /// Kernel threads; nil uses every core.
        public var threads: Int?
        /// Context length of text sessions; nil uses min(model context, 4096).
        public var contextLength: Int?
        /// Seconds an idle model stays loaded (Ollama's keep-alive): 0 unloads after each op,
        /// a negative value keeps it. Nil uses the runtime's default (5 minutes).
        public var keepAliveSeconds: Double?
        /// Resident-memory budget in bytes; nil derives it from the machine.
        public var memoryBudgetBytes: Int?

        public init() {}

        /// The text model `op` runs on.
        func textModelId(for op: Op) -> String { textModel ?? op.defaultModelId }
    }

    public let configuration: Configuration
    /// The runtime (residency, downloads, capability, events), built on first use so that
    /// making an instance is cheap and synchronous.
    let runtimeTask: Task<OnDeviceRuntime, Error>

    /// Builds the instance. Nothing is loaded or downloaded until an op needs it.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        var dependencies = RuntimeDependencies.complete()
        if let root = configuration.storeRoot { dependencies.store.root = root }
        if let endpoint = configuration.hubEndpoint { dependencies.store.hfEndpoint = endpoint }
        // An app's configuration is its own: the instance does not read or write the user's
        // settings file.
        dependencies.settingsFile = nil
        var settings = RuntimeSettings()
        settings.textModel = configuration.textModel
        if let c = configuration.contextLength { settings.contextLength = c }
        settings.threads = configuration.threads
        if let k = configuration.keepAliveSeconds { settings.keepAliveSeconds = k }
        settings.memoryBudgetBytes = configuration.memoryBudgetBytes
        dependencies.initialSettings = settings
        let deps = dependencies
        runtimeTask = Task { try await OnDeviceRuntime.make(deps) }
    }

    /// An instance over a runtime that already exists (`ondevice serve` builds one for all its
    /// endpoints): its store, residency cache and settings are shared, not copied.
    package init(runtime: OnDeviceRuntime, configuration: Configuration = Configuration()) {
        self.configuration = configuration
        runtimeTask = Task { runtime }
    }

    /// An instance over the user's own setup, as the `ondevice` command has it: the model store
    /// and the settings file located from the environment (`ONDEVICE_HOME`, `ONDEVICE_SETTINGS`,
    /// the XDG folders), every engine of this build registered.
    package static func fromEnvironment(configuration: Configuration = Configuration()) async throws -> OnDeviceAI {
        OnDeviceAI(runtime: try await OnDeviceRuntime.make(.complete()), configuration: configuration)
    }

    /// Another instance over this one's runtime (store, residency cache, settings shared) with
    /// `configuration` for its ops.
    package func sharingRuntime(configuration: Configuration) -> OnDeviceAI {
        OnDeviceAI(runtimeTask: runtimeTask, configuration: configuration)
    }

    private init(runtimeTask: Task<OnDeviceRuntime, Error>, configuration: Configuration) {
        self.configuration = configuration
        self.runtimeTask = runtimeTask
    }

    /// Unloads every model and stops watching memory pressure; the instance is done.
    package func shutdown() async {
        guard let runtime = try? await runtime() else { return }
        await runtime.shutdown()
    }

    /// The runtime behind the ops, for diagnostics and advanced use.
    package func runtime() async throws -> OnDeviceRuntime { try await runtimeTask.value }

    /// Runs `body` with a lease on the text model and a session from its pool, streaming its
    /// events. The lease is taken in a task; `body` (a whole generation, synchronous) runs on a
    /// compute thread of its own, so a long decode never holds one of Swift's cooperative
    /// threads (two of them on a two-core machine) and the consumer that would cancel it always
    /// gets to run. Cancelling the consumer sets the context's flag, which the decode loop polls
    /// between tokens; the session and the lease are given back however the producer ends.
    func textStream(model: String? = nil, adapters: [LoRA] = [], _ body: @escaping @Sendable (Session, TextOpContext) throws -> TextResult)
        -> AsyncThrowingStream<TextEvent, Error> {
        pacedTextStream(model: model, adapters: adapters, readAhead: nil, body).events
    }

    /// `textStream` whose producer runs at most `readAhead` partial events ahead of the
    /// consumer (nil: no limit) — a consumer that stops reading pauses decoding — with a
    /// `cancel` that stops the producer however far the consumer got. (A gated stream's
    /// consumer that leaves without cancelling its task cannot end it: the stream's own end
    /// only reaches the producer from inside a pending `next()`.) The session a chat session
    /// keeps between its turns is found again by its `owner` tag.
    func pacedTextStream(model: String? = nil, owner: UInt64? = nil, adapters: [LoRA], readAhead: Int?,
                         _ body: @escaping @Sendable (Session, TextOpContext) throws -> TextResult) -> PacedTextStream {
        let (stream, continuation) = AsyncThrowingStream<TextEvent, Error>.makeStream()
        let reference = model ?? configuration.textModelId(for: .chat)
        let cancellation = EngineSupport.CancellationFlag()
        let gate = readAhead.map { DemandGate(limit: $0) }
        let ai = self
        let task = Task.detached {
            do {
                let result = try await ai.withTextSession(model: model, owner: owner, adapters: adapters) { session, lease, scaled, _ in
                    let context = TextOpContext(continuation: continuation, adapters: scaled, cancellation: cancellation,
                                                gate: gate, report: { lease.report($0) }, model: reference)
                    return try body(session, context)
                }
                // The lease went back before the consumer sees the end, so an op that has
                // returned holds nothing.
                continuation.yield(.finished(result))
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        let cancel: @Sendable () -> Void = {
            cancellation.cancel()
            gate?.cancel()
            task.cancel()
        }
        continuation.onTermination = { _ in cancel() }
        guard let gate else { return PacedTextStream(events: stream, cancel: cancel) }
        let events = GatedIterator(stream, gate: gate)
        return PacedTextStream(events: AsyncThrowingStream { try await events.next() }, cancel: cancel)
    }

    /// `adapters` loaded through the leased model, with this request's scales: an adapter file
    /// loads once per resident model and is shared by every request that uses it.
    private static func scaled(_ adapters: [LoRA], on lease: TextGenerationLease) throws -> [ScaledAdapter] {
        var scaled: [ScaledAdapter] = []
        for a in adapters {
            do { scaled.append(ScaledAdapter(try lease.lease.model.adapter(path: a.path), scale: a.scale)) } catch {
                throw OnDeviceError.adapterUnusable(path: a.path, reason: String(describing: error))
            }
        }
        return scaled
    }

    /// Runs `body` on a compute thread with a session of text model `model` (nil: the configured
    /// one) from a lease, and gives both back before returning — for short work that is not a
    /// generation (tokenizing, describing the model).
    func withTextSession<T: Sendable>(model: String?, owner: UInt64? = nil,
                                      _ body: @escaping @Sendable (Session) throws -> T) async throws -> T {
        try await withTextSession(model: model, owner: owner) { session, _, _, _ in try body(session) }
    }

    /// The one path from the public API to a text model, for every op and every completion:
    /// leases `model` (nil: the configured one) through the text feature — with `options`
    /// instead of the instance's context and threads when given, and `keepAlive` — lets
    /// `leased` see it (a server's admission), then runs `body` on a compute thread with a
    /// session from the model's pool, `adapters` loaded, and the thread's cancellation flag
    /// (set when the calling task is cancelled). Session and lease are back before it returns or
    /// throws; engine errors come out as `OnDeviceError`. Without an `owner`, `prompt` (the op's
    /// prompt ids, worked out on the lease's model) picks the idle session whose cache holds the
    /// most of it.
    func withTextSession<T: Sendable>(model: String?, owner: UInt64? = nil, options: LoadOptions? = nil, keepAlive: KeepAlive? = nil,
                                      adapters: [LoRA] = [], leased: (TextGenerationLease) async -> Void = { _ in },
                                      prompt: @escaping @Sendable (TextGenerationLease) -> [Int32]? = { _ in nil },
                                      _ body: @escaping @Sendable (Session, TextGenerationLease, [ScaledAdapter], EngineSupport.CancellationFlag) throws -> T)
        async throws -> T {
        let reference = model ?? configuration.textModelId(for: .chat)
        let lease: TextGenerationLease
        do {
            lease = try await runtime().textGeneration.lease(model: model, keepAlive: keepAlive, options: options)
        } catch RuntimeError.cancelled {
            throw OnDeviceError.cancelled
        } catch let error as RuntimeError {
            throw OnDeviceError.modelUnavailable(model: reference, reason: String(describing: error))
        }
        do {
            await leased(lease)
            let value = try await ComputeThread.run(name: "ondevice.text") { cancellation in
                let scaled = try Self.scaled(adapters, on: lease)
                return try lease.withSession(owner: owner, prompt: owner == nil ? prompt(lease) : nil, adapters: scaled) {
                    try body($0, lease, scaled, cancellation)
                }
            }
            await lease.release()
            return value
        } catch {
            await lease.release()
            if let error = error as? EngineError { throw OnDeviceError(error) }
            throw error
        }
    }

    /// Consumes a text stream to its final result.
    func collect(_ stream: AsyncThrowingStream<TextEvent, Error>) async throws -> TextResult {
        for try await event in stream {
            if case .finished(let result) = event { return result }
        }
        throw OnDeviceError.cancelled
    }
}

/// A text stream and the way to stop its producer.
struct PacedTextStream: Sendable {
    let events: AsyncThrowingStream<TextEvent, Error>
    let cancel: @Sendable () -> Void
}

/// What an op's body uses to report partial text and progress.
struct TextOpContext: Sendable {
    let continuation: AsyncThrowingStream<TextEvent, Error>.Continuation
    /// The request's adapters, loaded, with their scales.
    var adapters: [ScaledAdapter] = []
    /// Set when the consumer goes away; the op's loops poll it (they run on a compute thread,
    /// where `Task.isCancelled` is always false).
    var cancellation = EngineSupport.CancellationFlag()
    /// Paces partial events to the consumer (`textStream`'s `readAhead`).
    var gate: DemandGate?
    /// Reports each finished model call to the runtime (event bus, feature status).
    var report: @Sendable (GenerationMetrics) -> Void = { _ in }
    /// The model's reference, for errors that name it.
    var model = ""

    /// Whether the op should stop now.
    var isCancelled: Bool { cancellation.isCancelled }

    func partial(_ text: String) {
        guard !text.isEmpty else { return }
        gate?.waitForRoom()
        continuation.yield(.partial(text))
    }

    func progress(_ done: Int, of total: Int, _ stage: String) {
        continuation.yield(.progress(OpProgress(completedSteps: done, totalSteps: total, stage: stage)))
    }
}

extension OnDeviceAI {
    /// Leases currently held on resident models (0 once every op has finished or been cancelled).
    package func activeLeases() async throws -> Int {
        try await runtime().residency.snapshot().models.reduce(0) { $0 + $1.leases }
    }

    /// Tokens cached by each idle pooled session of the text model (diagnostics and tests).
    package func pooledCachedTokens() async throws -> [Int] {
        let lease = try await runtime().textGeneration.lease()
        let counts = lease.lease.model.idleCachedTokenCounts
        await lease.release()
        return counts
    }
}
