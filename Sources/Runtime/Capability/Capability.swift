import ModelStore

/// Whether an op or model can run here, and what stands in the way if not.
package enum CapabilityStatus: Sendable, Equatable {
    /// Installed, fits the memory budget, an engine is present: the next call runs.
    case ready
    /// Not (completely) on disk; `bytes` remain to download and the disk has room.
    case needsDownload(bytes: Int64)
    /// This process is downloading it; nil progress until the first bytes arrive.
    case downloading(PullProgress?)
    /// The download would not fit on the disk.
    case insufficientStorage(needed: Int64, free: Int64)
    /// Loaded alone it would exceed the resident-memory budget.
    case insufficientMemory(needed: Int, budget: Int)
    /// Cannot run in this build on this machine, whatever is downloaded or freed.
    case unsupported(reason: String)
}

/// A capability answer with the facts behind it.
package struct CapabilityReport: Sendable, Equatable {
    /// The op asked about, when the question was an op.
    package var op: Op?
    package var modelId: String
    package var kind: ModelKind
    package var status: CapabilityStatus
    /// Bytes still to fetch (0 when installed).
    package var downloadBytesRemaining: Int64
    /// Free bytes on the store's file system; nil when it cannot be measured.
    package var freeDiskBytes: Int64?
    /// Memory the model will take (weights + KV cache + scratch), nil when unknown.
    package var residentEstimate: MemoryEstimate?
    /// True when the estimate counts the weight files only (the model is not on disk yet, so its
    /// header cannot be read): the real figure is at least this.
    package var estimateIsLowerBound: Bool
    package var memoryBudgetBytes: Int
    /// Loaded right now.
    package var isResident: Bool
    package var cpu: CPUFeatures

    package var residentEstimateBytes: Int? { residentEstimate?.totalBytes }
}

/// What a capability answer is decided from; gathered by `Capabilities`, decided by `assess`.
package struct CapabilityFacts: Sendable, Equatable {
    package var op: Op?
    package var entry: CatalogEntry
    package var install: InstallState
    /// Installed or staged bytes on disk.
    package var bytesOnDisk: Int64
    package var downloading: Bool
    package var progress: PullProgress?
    package var freeDiskBytes: Int64?
    package var estimate: MemoryEstimate?
    package var estimateIsLowerBound: Bool
    package var budget: Int
    package var hasEngine: Bool
    /// Why the engine of this kind cannot run this particular file (read from its header).
    package var unsupportedReason: String?
    package var isResident: Bool
    package var cpu: CPUFeatures

    package init(op: Op?, entry: CatalogEntry, install: InstallState, bytesOnDisk: Int64, downloading: Bool = false,
                 progress: PullProgress? = nil, freeDiskBytes: Int64?, estimate: MemoryEstimate?, estimateIsLowerBound: Bool,
                 budget: Int, hasEngine: Bool, unsupportedReason: String? = nil, isResident: Bool = false, cpu: CPUFeatures) {
        self.op = op
        self.entry = entry
        self.install = install
        self.bytesOnDisk = bytesOnDisk
        self.downloading = downloading
        self.progress = progress
        self.freeDiskBytes = freeDiskBytes
        self.estimate = estimate
        self.estimateIsLowerBound = estimateIsLowerBound
        self.budget = budget
        self.hasEngine = hasEngine
        self.unsupportedReason = unsupportedReason
        self.isResident = isResident
        self.cpu = cpu
    }
}

extension CapabilityReport {
    /// Decides the status, most fundamental obstacle first: no engine in this build; too large for
    /// the memory budget (even a lower-bound estimate over budget is certain); a download in
    /// progress; not enough disk; a download needed; otherwise ready. "Unsupported" comes only
    /// from a missing engine, never from guesses about the CPU (see `CPUFeatures`).
    package static func assess(_ facts: CapabilityFacts) -> CapabilityReport {
        let installed = facts.install == .installed && facts.bytesOnDisk >= facts.entry.knownBytes
        let remaining = installed ? 0 : max(0, facts.entry.knownBytes - (facts.install == .partial ? facts.bytesOnDisk : 0))
        let needed = facts.estimate?.totalBytes
        let status: CapabilityStatus
        if !facts.hasEngine {
            status = .unsupported(reason: "no engine for \(facts.entry.kind.rawValue) models in this build")
        } else if let reason = facts.unsupportedReason {
            status = .unsupported(reason: reason)
        } else if let needed, needed > facts.budget {
            status = .insufficientMemory(needed: needed, budget: facts.budget)
        } else if facts.downloading {
            status = .downloading(facts.progress)
        } else if !installed, let free = facts.freeDiskBytes, free < remaining {
            status = .insufficientStorage(needed: remaining, free: free)
        } else if !installed {
            status = .needsDownload(bytes: remaining)
        } else {
            status = .ready
        }
        return CapabilityReport(op: facts.op, modelId: facts.entry.id, kind: facts.entry.kind, status: status,
                                downloadBytesRemaining: remaining, freeDiskBytes: facts.freeDiskBytes,
                                residentEstimate: facts.estimate, estimateIsLowerBound: facts.estimateIsLowerBound,
                                memoryBudgetBytes: facts.budget, isResident: facts.isResident, cpu: facts.cpu)
    }
}
