import Foundation

/// The model store: catalog, installed models under `<root>/<repo>/<revision>/<variant>`, pulls,
/// validation cache, deletion and storage accounting.
///
/// An actor so the catalog and counters change in one place; the slow work (transfers, waiting for
/// another process's lock) happens in `ModelInstaller` while the actor is free for other calls.
/// Safe across processes: installs and deletes take the model's lock file, and the validation
/// cache and last-used times live on disk.
package actor ModelStore {
    package nonisolated let configuration: StoreConfiguration
    package nonisolated let layout: StoreLayout
    package internal(set) var catalog: Catalog
    package private(set) var statistics = StoreStatistics()

    /// Opens the store at `configuration.root` (created lazily) and loads custom registrations.
    package init(configuration: StoreConfiguration = .fromEnvironment()) throws(StoreError) {
        self.configuration = configuration
        self.layout = StoreLayout(root: configuration.root)
        self.catalog = try Self.loadCatalog(layout)
    }

    // MARK: Lookup

    /// The installed model for `id`, or nil when it is not (completely) installed. Cheap: checks
    /// presence and sizes only, no hashing. Records the time as the model's last use.
    package func resolve(_ id: String) throws(StoreError) -> InstalledModel? {
        let entry = try catalog.entry(id: id)
        let directory = layout.modelDirectory(entry)
        guard ModelValidator.sizesMatch(entry, in: directory) else { return nil }
        markUsed(entry)
        return InstalledModel(entry: entry, directory: directory)
    }

    /// Status of one catalog model.
    package func get(_ id: String) throws(StoreError) -> ModelStatus {
        status(of: try catalog.entry(id: id))
    }

    /// Every catalog model (pinned and custom) with its state on disk.
    package func list() -> [ModelStatus] { catalog.entries.map(status(of:)) }

    /// Bytes per model with anything on disk, their total, and free bytes on the file system.
    package func storage() -> StorageReport {
        let models = list().filter { $0.state != .absent }
        return StorageReport(models: models, totalBytes: models.reduce(0) { $0 + $1.bytesOnDisk },
                             freeBytes: FileSystem.exists(layout.root) ? configuration.freeSpace.freeBytes(at: layout.root) : nil)
    }

    private func status(of entry: CatalogEntry) -> ModelStatus {
        let directory = layout.modelDirectory(entry)
        let record = ModelRecord.load(layout.recordPath(entry))
        if FileSystem.isDirectory(directory) {
            return ModelStatus(entry: entry, state: .installed, bytesOnDisk: DirectorySnapshot.take(of: directory).fileBytes,
                               lastUsed: record?.lastUsed, directory: directory)
        }
        let staged = DirectorySnapshot.take(of: layout.stagingDirectory(entry)).fileBytes
        return ModelStatus(entry: entry, state: staged > 0 ? .partial : .absent, bytesOnDisk: staged,
                           lastUsed: record?.lastUsed, directory: directory)
    }

    // MARK: Validation

    /// Validates an installed model. When its metadata snapshot equals the one recorded at the last
    /// successful validation (and the entry is unchanged), that result is reused without hashing;
    /// otherwise sizes, headers and SHA-256 are checked again. `force` skips the cache.
    package func validate(_ id: String, force: Bool = false) throws(StoreError) -> ValidationReport {
        try validate(catalog.entry(id: id), force: force)
    }

    private func validate(_ entry: CatalogEntry, force: Bool) -> ValidationReport {
        let directory = layout.modelDirectory(entry)
        guard FileSystem.isDirectory(directory) else {
            return ValidationReport(id: entry.id, problem: .notInstalled(id: entry.id), reusedCache: false, bytesHashed: 0)
        }
        var record = ModelRecord.load(layout.recordPath(entry)) ?? ModelRecord(id: entry.id)
        // Taken before hashing: a file changed while being hashed then no longer matches it.
        let snapshot = DirectorySnapshot.take(of: directory)
        if !force, record.validatedSnapshot == snapshot, record.validatedFingerprint == entry.fingerprint {
            statistics.validationsReused += 1
            return ValidationReport(id: entry.id, problem: nil, reusedCache: true, bytesHashed: 0)
        }
        let (problem, hashed) = ModelValidator.check(entry, in: directory)
        if hashed > 0 { statistics.validationsHashed += 1 }
        statistics.bytesHashed += hashed
        record.validatedSnapshot = problem == nil ? snapshot : nil
        record.validatedFingerprint = problem == nil ? entry.fingerprint : nil
        try? record.save(layout.recordPath(entry))
        return ValidationReport(id: entry.id, problem: problem, reusedCache: false, bytesHashed: hashed)
    }

    // MARK: Pull, refresh, delete

    /// Makes `id` installed and verified: reuses a valid copy, otherwise downloads (resuming any
    /// partial files) and installs atomically. Concurrent pulls of one model, in this process or
    /// another, end with one verified copy: the second waits on the lock and reuses the first's.
    package func pull(_ id: String, progress: @escaping @Sendable (PullProgress) -> Void = { _ in }) async throws(StoreError) -> InstalledModel {
        let entry = try catalog.entry(id: id)
        let report = validate(entry, force: false)
        if report.isValid {
            markUsed(entry)
            return InstalledModel(entry: entry, directory: layout.modelDirectory(entry))
        }
        if case .local = entry.source { throw report.problem ?? .notInstalled(id: id) }
        let meter = ProgressMeter(id: id, total: entry.files.allSatisfy { $0.bytes != nil } ? entry.knownBytes : nil,
                                  interval: configuration.progressInterval, sink: progress)
        let installer = ModelInstaller(configuration: configuration, layout: layout)
        let replace = report.problem != .notInstalled(id: id)
        let resolved = try await installer.install(entry, replaceExisting: replace, meter: meter)
        if resolved != entry { try await updateRegistered(resolved) }
        let check = validate(resolved, force: false)
        if let problem = check.problem { throw problem }
        markUsed(resolved)
        return InstalledModel(entry: resolved, directory: layout.modelDirectory(resolved))
    }

    /// `pull` as a stream: progress events, then `.installed`; cancelling the consumer cancels it.
    package nonisolated func pullEvents(_ id: String) -> AsyncThrowingStream<PullEvent, Error> {
        let (stream, continuation) = AsyncThrowingStream<PullEvent, Error>.makeStream()
        let task = Task {
            do throws(StoreError) {
                let model = try await self.pull(id) { continuation.yield(.progress($0)) }
                continuation.yield(.installed(model))
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// Re-validates from scratch (hashing); a model that fails is replaced by a fresh pull.
    package func refresh(_ id: String, progress: @escaping @Sendable (PullProgress) -> Void = { _ in }) async throws(StoreError) -> InstalledModel {
        let report = try validate(id, force: true)
        if let problem = report.problem, problem != .notInstalled(id: id) {
            if case .local = try catalog.entry(id: id).source { throw problem }
        }
        return try await pull(id, progress: progress)
    }

    /// Removes an installed model, its staged partial files and its record. Returns false when
    /// there was nothing on disk.
    @discardableResult
    package func delete(_ id: String) async throws(StoreError) -> Bool {
        let entry = try catalog.entry(id: id)
        let installer = ModelInstaller(configuration: configuration, layout: layout)
        let layout = self.layout
        return try await installer.withModelLock(entry) { @Sendable () throws(StoreError) -> Bool in
            let directory = layout.modelDirectory(entry), staging = layout.stagingDirectory(entry)
            let existed = FileSystem.exists(directory) || FileSystem.exists(staging)
            if FileSystem.exists(directory) { try installer.moveToTrash(directory) }
            FileSystem.removeTree(staging)
            FileSystem.removeTree(layout.recordPath(entry))
            return existed
        }
    }

    /// Stamps the model's last-used time (also done by `resolve` and `pull`).
    package func markUsed(_ id: String) throws(StoreError) { markUsed(try catalog.entry(id: id)) }

    private func markUsed(_ entry: CatalogEntry) {
        var record = ModelRecord.load(layout.recordPath(entry)) ?? ModelRecord(id: entry.id)
        record.lastUsed = Date()
        try? record.save(layout.recordPath(entry))
    }
}
