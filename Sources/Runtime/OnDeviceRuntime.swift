import ModelStore

/// The runtime's composition root and its one mutation entry point.
///
/// `make` builds the whole graph once, from `RuntimeDependencies`: event bus, store, downloads,
/// residency cache, capability answers, settings, and the stable features. Nothing is a
/// singleton; a test builds the same graph with fakes. Configuration reaches the features only
/// through `apply`, which rejects stale revisions, ignores an unchanged identity, and swaps only
/// the backends whose slice of identity changed.
package actor OnDeviceRuntime: ConfigurationApplying {
    package nonisolated let events: EventBus<RuntimeEvent>
    package nonisolated let store: ModelStore
    package nonisolated let downloads: Downloads
    package nonisolated let residency: Residency
    package nonisolated let capabilities: Capabilities
    package nonisolated let settings: SettingsModel
    package nonisolated let textGeneration: TextGenerationFeature
    private var lastRevision: UInt64
    private var lastIdentity: RuntimeIdentity
    private var pressureTask: Task<Void, Never>?
    /// Features of higher layers (photo similarity) that swap backends on their slice, held
    /// weakly: a feature lives as long as its owner (a photo library) holds it, and the backend
    /// it installed, with the model lease that backend holds, goes with it.
    private var sliceConsumers: [WeakSliceConsumer] = []

    private init(events: EventBus<RuntimeEvent>, store: ModelStore, downloads: Downloads, residency: Residency,
                 capabilities: Capabilities, settings: SettingsModel, textGeneration: TextGenerationFeature,
                 initial: RuntimeConfiguration) {
        self.events = events
        self.store = store
        self.downloads = downloads
        self.residency = residency
        self.capabilities = capabilities
        self.settings = settings
        self.textGeneration = textGeneration
        // The graph was built from the revision-0 snapshot, so that identity is already in place.
        self.lastRevision = initial.revision
        self.lastIdentity = initial.identity
    }

    /// Builds the runtime: reads settings (defaults when there is no file), opens the store, makes
    /// every component with the initial configuration, binds settings (publishing revision 1) and
    /// starts pressure monitoring.
    package static func make(_ dependencies: RuntimeDependencies = .production()) async throws(RuntimeError) -> OnDeviceRuntime {
        let events = EventBus<RuntimeEvent>(defaultBufferSize: dependencies.eventBufferSize)
        let store: ModelStore
        do { store = try ModelStore(configuration: dependencies.store) } catch { throw .store(error) }
        let resolver = dependencies.resolver ?? StoreBackendResolver(store: store)
        var startSettings = RuntimeSettings()
        if let initial = dependencies.initialSettings {
            startSettings = initial
        } else if let file = dependencies.settingsFile {
            startSettings = try file.load()
        }
        let fingerprint = await resolver.fingerprint(modelId: startSettings.textModelId(for: .chat))
        let settings = SettingsModel(settings: startSettings, textModelFingerprint: fingerprint,
                                     file: dependencies.settingsFile, resolver: resolver)
        let initial = await settings.snapshot()
        let identity = initial.identity
        let downloads = Downloads(store: store, events: events)
        let residency = Residency(policy: identity.residency.policy, keepAlive: identity.residency.keepAlive,
                                  memoryProbe: dependencies.memoryProbe, clock: dependencies.clock, events: events)
        let capabilities = Capabilities(store: store, downloads: downloads, residency: residency,
                                        engines: dependencies.engines, cpu: dependencies.cpu)
        let textGeneration = TextGenerationFeature(backend: identity.textGeneration, residency: residency,
                                                   downloads: downloads, events: events)
        let runtime = OnDeviceRuntime(events: events, store: store, downloads: downloads, residency: residency,
                                      capabilities: capabilities, settings: settings, textGeneration: textGeneration,
                                      initial: initial)
        await settings.bind(runtime)
        if let probe = dependencies.pressureProbe {
            await runtime.startPressureMonitor(PressureMonitor(probe: probe, interval: dependencies.pressureInterval),
                                               clock: dependencies.clock)
        }
        return runtime
    }

    // MARK: Configuration

    /// Applies a configuration snapshot: stale revisions are rejected, an identical identity only
    /// records the revision, and each backend is swapped only when its own slice changed. The
    /// decision is recorded before any effect awaits, so an apply that interleaves sees it.
    package func apply(_ configuration: RuntimeConfiguration) async -> ApplyOutcome {
        guard configuration.revision > lastRevision else {
            return .stale(revision: configuration.revision, lastAccepted: lastRevision)
        }
        let incoming = configuration.identity
        let previous = lastIdentity
        lastRevision = configuration.revision
        guard incoming != previous else { return .unchanged(revision: configuration.revision) }
        lastIdentity = incoming
        let swapped = incoming.changedSlices(from: previous)
        if swapped.contains(.residency) {
            await residency.configure(policy: incoming.residency.policy, keepAlive: incoming.residency.keepAlive)
        }
        if swapped.contains(.textGeneration) {
            textGeneration.replaceBackend(incoming.textGeneration)
            // Same id, other files (a re-registered custom model): the resident copy is stale.
            if previous.textGeneration.modelId == incoming.textGeneration.modelId,
               previous.textGeneration.modelFingerprint != incoming.textGeneration.modelFingerprint {
                await residency.unload(incoming.textGeneration.modelId)
            }
        }
        for consumer in sliceConsumers.compactMap(\.consumer) where swapped.contains(consumer.slice) {
            await consumer.configure(incoming, revision: configuration.revision)
        }
        events.publish(.configurationApplied(revision: configuration.revision, swapped: swapped))
        return .applied(revision: configuration.revision, swapped: swapped)
    }

    /// Attaches a stable feature of a higher layer: it gets the accepted identity now, and every
    /// later identity whose `slice` changed.
    package func attach(_ consumer: any ConfigurationSliceConsumer) async {
        sliceConsumers.removeAll { $0.consumer == nil }
        sliceConsumers.append(WeakSliceConsumer(consumer: consumer))
        await consumer.configure(lastIdentity, revision: lastRevision)
    }

    /// The last accepted revision and identity.
    package var accepted: (revision: UInt64, identity: RuntimeIdentity) { (lastRevision, lastIdentity) }

    // MARK: Capability and events

    /// Whether `op` can run now, on the model this runtime would use for it.
    package nonisolated func capability(_ op: Op) async throws(RuntimeError) -> CapabilityReport {
        let (modelId, options) = modelAndOptions(for: op)
        return try await capabilities.capability(modelId: modelId, options: options, op: op)
    }

    /// Whether model `modelId` can run now (text models with the text backend's options).
    package nonisolated func capability(modelId: String) async throws(RuntimeError) -> CapabilityReport {
        try await capabilities.capability(modelId: modelId, options: textGeneration.backend.options)
    }

    /// The model and options an op runs with: text ops use the text backend; the others their
    /// catalog default until their features arrive.
    package nonisolated func modelAndOptions(for op: Op) -> (String, LoadOptions) {
        switch op {
        case .translate:
            let backend = textGeneration.backend
            return (backend.translationModelId, backend.options)
        case .generate, .chat, .summarize, .proofread:
            let backend = textGeneration.backend
            return (backend.modelId, backend.options)
        default:
            return (op.defaultModelId, LoadOptions())
        }
    }

    /// A new subscription to runtime events.
    package nonisolated func subscribe(bufferSize: Int? = nil) -> EventSubscription<RuntimeEvent> {
        events.subscribe(bufferSize: bufferSize)
    }

    // MARK: Lifetime

    private func startPressureMonitor(_ monitor: PressureMonitor, clock: any RuntimeClock) {
        let residency = residency
        pressureTask = Task { await monitor.run(clock: clock, residency: residency) }
    }

    /// Stops monitoring, unloads every idle model and ends event subscriptions.
    package func shutdown() async {
        pressureTask?.cancel()
        pressureTask = nil
        await residency.unloadAll()
        events.finish()
    }
}

/// A slice consumer the runtime does not keep alive.
private struct WeakSliceConsumer {
    weak var consumer: (any ConfigurationSliceConsumer)?
}
