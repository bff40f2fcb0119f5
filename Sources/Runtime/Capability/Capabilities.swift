import Foundation
import ModelStore

/// Answers "can this run here?" before anything is downloaded or loaded, from the store (what is
/// on disk, how much is left, free disk), in-process downloads, the memory budget, the engines in
/// this build and the CPU.
package struct Capabilities: Sendable {
    package let store: ModelStore
    package let downloads: Downloads
    package let residency: Residency
    package let engines: EngineRegistry
    package let cpu: CPUFeatures

    package init(store: ModelStore, downloads: Downloads, residency: Residency, engines: EngineRegistry, cpu: CPUFeatures) {
        self.store = store
        self.downloads = downloads
        self.residency = residency
        self.engines = engines
        self.cpu = cpu
    }

    /// The answer for `modelId` run with `options` (for decoders, the KV cache depends on the
    /// context length). `op` is recorded in the report when the question was an op.
    package func capability(modelId: String, options: LoadOptions, op: Op? = nil) async throws(RuntimeError) -> CapabilityReport {
        let status: ModelStatus
        do { status = try await store.get(modelId) } catch { throw .store(error) }
        let entry = status.entry
        let engine = engines.engine(for: entry.kind)
        let installed = status.state == .installed && status.bytesOnDisk >= entry.knownBytes
        var estimate = MemoryEstimate(weightBytes: Int(entry.knownBytes))
        var lowerBound = true
        var unsupported: String?
        if installed, let engine {
            do {
                estimate = try engine.loader(for: entry, in: status.directory, options: options).estimate()
                lowerBound = false
            } catch {
                if case .unsupportedModel(_, let reason) = error { unsupported = reason }
            }
        }
        let snapshot = await residency.snapshot()
        let facts = CapabilityFacts(
            op: op, entry: entry, install: status.state, bytesOnDisk: status.bytesOnDisk,
            downloading: downloads.isDownloading(modelId), progress: downloads.progress(of: modelId),
            freeDiskBytes: freeDisk(), estimate: estimate, estimateIsLowerBound: lowerBound, budget: snapshot.budget,
            hasEngine: engine != nil, unsupportedReason: unsupported, isResident: snapshot.models.contains { $0.modelId == modelId && !$0.loading }, cpu: cpu)
        return CapabilityReport.assess(facts)
    }

    /// Free bytes on the file system that holds (or will hold) the store root.
    private func freeDisk() -> Int64? {
        var path = store.layout.root
        while !FileManager.default.fileExists(atPath: path) && path != "/" && !path.isEmpty {
            path = (path as NSString).deletingLastPathComponent
        }
        return store.configuration.freeSpace.freeBytes(at: path.isEmpty ? "/" : path)
    }
}
