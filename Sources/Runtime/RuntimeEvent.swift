import ModelStore
import TextGeneration

/// What the runtime tells its observers: downloads, loads, unloads, pressure, per-generation
/// metrics and configuration changes.
package enum RuntimeEvent: Sendable, Equatable {
    case downloadStarted(modelId: String, totalBytes: Int64?)
    case downloadProgress(PullProgress)
    case downloadFinished(modelId: String, seconds: Double)
    case downloadFailed(modelId: String, error: RuntimeError)
    case loadStarted(modelId: String, estimate: MemoryEstimate)
    /// `residentBytes` is measured; `seconds` is the load time (a reload after eviction shows as
    /// a second `loadStarted` / `loadFinished` pair: a cache miss).
    case loadFinished(modelId: String, residentBytes: Int, seconds: Double)
    case loadFailed(modelId: String, error: RuntimeError)
    /// The runtime took the model away to get memory back.
    case evicted(modelId: String, bytes: Int, reason: UnloadReason)
    /// The model's keep-alive ran out, or the caller asked.
    case unloaded(modelId: String, bytes: Int, reason: UnloadReason)
    /// The kernel reported memory pressure above normal.
    case memoryPressure(MemoryPressure)
    /// One generation finished on `modelId`.
    case generation(modelId: String, metrics: GenerationMetrics)
    /// A configuration revision was applied; `swapped` lists the backends it replaced.
    case configurationApplied(revision: UInt64, swapped: [ConfigurationSlice])
}
