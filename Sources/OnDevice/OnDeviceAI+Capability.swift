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
        self.init(status: status, model: r.modelId, downloadBytesRemaining: r.downloadBytesRemaining, freeDiskBytes: r.freeDiskBytes,
                  residentEstimateBytes: r.residentEstimateBytes, estimateIsLowerBound: r.estimateIsLowerBound,
                  memoryBudgetBytes: r.memoryBudgetBytes)
    }
}
