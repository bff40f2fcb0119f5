import ModelStore
import Runtime

extension Capability {
    /// An operation an app can ask about before calling it (nested, so it never meets
    /// Foundation's `Operation`).
    public enum Operation: String, Sendable, Equatable, CaseIterable {
        case generate, chat, summarize, translate, proofread, transcribe, detectSpeech, embed, search, speak, detectFaces, classify

        var op: Op {
            switch self {
            case .generate: .generate
            case .chat: .chat
            case .summarize: .summarize
            case .translate: .translate
            case .proofread: .proofread
            case .transcribe: .transcribe
            case .detectSpeech: .vad
            case .embed: .embed
            case .search: .search
            case .speak: .speak
            case .detectFaces: .faces
            case .classify: .classify
            }
        }

        init(_ op: Op) {
            // `op` is one-to-one over the cases, so the inverse is a lookup.
            self = Self.allCases.first { $0.op == op } ?? .generate
        }

        /// The short name `ondevice.json`, `ondevice prefetch --ops` and `ondevice capability`
        /// use: the case's name, except `vad` for `detectSpeech` and `faces` for `detectFaces`.
        public var name: String { op.rawValue }

        /// The operation with that short name (nil for none).
        public init?(name: String) {
            guard let op = Op(rawValue: name) else { return nil }
            self.init(op)
        }

        /// The catalog model the operation runs on when nothing else is configured.
        public var defaultModel: String { op.defaultModelId }
    }

    /// Memory a loaded model takes, by part.
    public struct MemoryEstimate: Sendable, Equatable {
        public var weightBytes: Int
        /// The KV cache at the configured context (0 for models without one).
        public var cacheBytes: Int
        /// Working buffers.
        public var scratchBytes: Int
        public var totalBytes: Int
    }

    /// The processor the answer holds for, and the kernel tier that runs on it.
    public struct Processor: Sendable, Equatable {
        /// `x86_64` or `arm64`.
        public var architecture: String
        public var cores: Int
        /// The kernel tier dispatched on this CPU (`avx512`, `avx2`, `neon`, `scalar`).
        public var kernels: String
        /// The CPU features that tier uses.
        public var flags: [String]
    }
}

/// Whether an operation can run on this machine now, and what stands in the way if not.
public struct Capability: Sendable, Equatable {
    public enum Status: Sendable, Equatable {
        /// Installed, fits the memory budget, and this build can run it: the next call runs.
        case ready
        /// The model must be downloaded first (`bytes` remain); the disk has room.
        case needsDownload(bytes: Int64)
        /// This process is downloading it.
        case downloading(receivedBytes: Int64, totalBytes: Int64?)
        /// The download would not fit on the disk.
        case insufficientStorage(neededBytes: Int64, freeBytes: Int64)
        /// Loaded alone it would exceed the resident-memory budget.
        case insufficientMemory(neededBytes: Int, budgetBytes: Int)
        /// This build cannot run it here, whatever is downloaded or freed.
        case unsupported(reason: String)

        /// The name scripts match on: `ready`, `needs_download`, `downloading`,
        /// `insufficient_storage`, `insufficient_memory` or `unsupported`.
        public var name: String {
            switch self {
            case .ready: "ready"
            case .needsDownload: "needs_download"
            case .downloading: "downloading"
            case .insufficientStorage: "insufficient_storage"
            case .insufficientMemory: "insufficient_memory"
            case .unsupported: "unsupported"
            }
        }
    }

    public var status: Status
    /// The model the operation would run on.
    public var model: String
    public var downloadBytesRemaining: Int64
    /// Free bytes where models are stored; nil when unknown.
    public var freeDiskBytes: Int64?
    /// Memory the loaded model will take; a lower bound (the weight files) until it is on disk.
    public var residentEstimateBytes: Int?
    public var estimateIsLowerBound: Bool
    public var memoryBudgetBytes: Int
    /// The operation asked about; nil when the question named a model.
    public var operation: Operation?
    /// What the model does.
    public var kind: ModelInfo.Kind
    /// The resident estimate by part; nil when nothing is known of the model yet.
    public var residentEstimate: MemoryEstimate?
    /// The model is loaded now.
    public var isResident: Bool
    /// For `.downloading`: the download's progress, when it has reported any.
    public var downloadProgress: DownloadProgress?
    public var processor: Processor
}

extension OnDeviceAI {
    /// Whether `operation` can run now on the model this instance would use for it, answered
    /// without downloading or loading anything.
    public func capability(_ operation: Capability.Operation) async throws -> Capability {
        let runtime = try await runtime()
        let report: CapabilityReport
        do {
            switch operation {
            case .transcribe:
                report = try await runtime.capabilities.capability(modelId: configuration.transcriptionModel,
                                                                   options: LoadOptions(threads: modelThreads), op: .transcribe)
            case .detectSpeech:
                report = try await runtime.capabilities.capability(modelId: configuration.voiceActivityModel, options: LoadOptions(), op: .vad)
            case .speak:
                report = try await runtime.capabilities.capability(modelId: configuration.speechVoice,
                                                                   options: LoadOptions(threads: modelThreads), op: .speak)
            case .classify:
                report = try await runtime.capabilities.capability(modelId: configuration.imageModel, options: LoadOptions(), op: .classify)
            case .embed, .search:
                report = try await runtime.capabilities.capability(modelId: configuration.embeddingModel,
                                                                   options: LoadOptions(threads: modelThreads), op: operation.op)
            default:
                report = try await runtime.capability(operation.op)
            }
        } catch {
            throw OnDeviceError.modelUnavailable(model: runtime.modelAndOptions(for: operation.op).0, reason: "\(error)")
        }
        return Capability(report)
    }

    /// Whether model `id` (any kind in the catalog) can run now, answered without downloading or
    /// loading anything. Text models are asked with this instance's context length and threads.
    public func capability(model id: String) async throws -> Capability {
        let runtime = try await runtime()
        do {
            return Capability(try await runtime.capability(modelId: id))
        } catch .store(let error) {
            throw OnDeviceError(store: error, model: id)
        } catch {
            throw OnDeviceError.modelUnavailable(model: id, reason: "\(error)")
        }
    }
}

extension Capability {
    init(_ r: CapabilityReport) {
        let status: Status = switch r.status {
        case .ready: .ready
        case .needsDownload(let bytes): .needsDownload(bytes: bytes)
        case .downloading(let p): .downloading(receivedBytes: p?.receivedBytes ?? 0, totalBytes: p?.totalBytes)
        case let .insufficientStorage(needed, free): .insufficientStorage(neededBytes: needed, freeBytes: free)
        case let .insufficientMemory(needed, budget): .insufficientMemory(neededBytes: needed, budgetBytes: budget)
        case .unsupported(let reason): .unsupported(reason: reason)
        }
        var progress: DownloadProgress?
        if case .downloading(let p?) = r.status { progress = DownloadProgress(p) }
        self.init(status: status, model: r.modelId, downloadBytesRemaining: r.downloadBytesRemaining, freeDiskBytes: r.freeDiskBytes,
                  residentEstimateBytes: r.residentEstimateBytes, estimateIsLowerBound: r.estimateIsLowerBound,
                  memoryBudgetBytes: r.memoryBudgetBytes, operation: r.op.map(Operation.init), kind: ModelInfo.Kind(rawValue: r.kind.rawValue) ?? .llm,
                  residentEstimate: r.residentEstimate.map {
                      MemoryEstimate(weightBytes: $0.weightBytes, cacheBytes: $0.cacheBytes, scratchBytes: $0.scratchBytes, totalBytes: $0.totalBytes)
                  },
                  isResident: r.isResident, downloadProgress: progress,
                  processor: Processor(architecture: r.cpu.architecture, cores: r.cpu.cores, kernels: r.cpu.kernelPath, flags: r.cpu.notableFlags))
    }
}
