/// Owns the user's settings and publishes them as numbered, complete configuration snapshots.
///
/// Every change funnels through `publish`: `update` (a setting changed here) and `refresh` (the
/// settings file or the catalog may have changed elsewhere). Revisions only grow. A refresh
/// awaits the store, so it carries a generation: when another refresh or an update starts while
/// it is suspended, its late result is dropped instead of published over the newer one.
package actor SettingsModel {
    package private(set) var settings: RuntimeSettings
    private var textModelFingerprint: String?
    private var revision: UInt64 = 0
    private var generation: UInt64 = 0
    private let file: SettingsFile?
    private let resolver: any BackendResolving
    private weak var consumer: (any ConfigurationApplying)?

    /// - Parameters:
    ///   - settings: the starting settings (normally `file.load()`).
    ///   - file: where changes persist; nil keeps them in memory (tests, embedded use).
    package init(settings: RuntimeSettings, textModelFingerprint: String?, file: SettingsFile?, resolver: any BackendResolving) {
        self.settings = settings
        self.textModelFingerprint = textModelFingerprint
        self.file = file
        self.resolver = resolver
    }

    /// The current configuration without publishing it (revision unchanged, no I/O).
    package func snapshot() -> RuntimeConfiguration {
        RuntimeConfiguration(revision: revision, settings: settings, textModelFingerprint: textModelFingerprint)
    }

    /// Connects the runtime and publishes the current settings to it at once.
    @discardableResult
    package func bind(_ consumer: any ConfigurationApplying) async -> ApplyOutcome? {
        self.consumer = consumer
        return await publish()
    }

    /// Changes settings, persists them, and publishes. Nothing changes when persisting fails.
    @discardableResult
    package func update(_ change: (inout RuntimeSettings) -> Void) async throws(RuntimeError) -> ApplyOutcome? {
        var updated = settings
        change(&updated)
        let path = file?.path ?? "settings"
        _ = try updated.validated(path: path)
        try file?.save(updated)
        generation &+= 1  // a refresh that started before this change must not publish over it
        let modelChanged = updated.textModelId(for: .chat) != settings.textModelId(for: .chat)
        settings = updated
        if modelChanged {
            let expected = generation
            let fingerprint = await resolver.fingerprint(modelId: updated.textModelId(for: .chat))
            guard expected == generation else { return nil }
            textModelFingerprint = fingerprint
        }
        return await publish()
    }

    /// Re-reads the settings file and re-resolves the model, then publishes, unless a newer
    /// refresh or update started meanwhile (then returns nil and publishes nothing).
    @discardableResult
    package func refresh() async throws(RuntimeError) -> ApplyOutcome? {
        generation &+= 1
        let expected = generation
        let reloaded = try file?.load() ?? settings
        let fingerprint = await resolver.fingerprint(modelId: reloaded.textModelId(for: .chat))
        guard expected == generation else { return nil }
        settings = reloaded
        textModelFingerprint = fingerprint
        return await publish()
    }

    private func publish() async -> ApplyOutcome? {
        guard let consumer else { return nil }
        revision &+= 1
        return await consumer.apply(snapshot())
    }
}
