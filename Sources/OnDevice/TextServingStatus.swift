/// A loaded text model's serving figures (`TextModel.servingStatus`), as a server's
/// `/metrics` shows them.
public struct TextServingStatus: Sendable, Equatable {
    /// Bytes every live session's KV cache and scratch take, in use or idle.
    public var kvCacheBytes: Int
    /// Bytes the memory budget leaves for sessions beside the model's own.
    public var kvBudgetBytes: Int
    /// Sessions alive, in use or idle.
    public var sessions: Int
    /// Continuous batching since the model loaded: forward passes, sequences they served
    /// (summed) and rows they evaluated.
    public var batchSteps: Int
    public var batchSequences: Int
    public var batchRows: Int
    /// Passes by sequences served: bucket i counts passes of up to `batchBounds[i]` sequences;
    /// the last bucket is open.
    public var batchSizes: [Int]
    public var batchBounds: [Int]
    /// Seconds those passes took: against wall time, how busy the model's compute was.
    public var batchBusySeconds = 0.0
    /// The prompt cache: copies held, the bytes they take and may take, and how many prompts
    /// started from a copy, sparing how many prompt tokens.
    public var promptCacheEntries = 0
    public var promptCacheBytes = 0
    public var promptCacheCapacity = 0
    public var promptCacheHits = 0
    public var promptCacheTokens = 0
}
