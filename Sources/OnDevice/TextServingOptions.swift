/// How a text model serves many requests (`TextModel.completions`): what a server sets once for
/// all its clients.
public struct TextServingOptions: Sendable, Equatable {
    /// Tokens of context per session; nil uses the instance's.
    public var contextLength: Int?
    /// Kernel threads per request; nil uses the instance's.
    public var threads: Int?
    /// Whether requests decoding at the same time share forward passes (continuous batching).
    public var batching = true
    /// How many requests the caller lets run at once: finished sessions up to this many (and
    /// within the memory budget) stay for the next request instead of being freed.
    public var maxRunning = 8
    /// Bytes of copied session caches the model may keep beside its sessions, within what the
    /// memory budget leaves once `maxRunning` sessions fit (llama-server's `--cache-ram`): a
    /// prompt its session shares little with starts from a copy holding more of it. 0 keeps none.
    public var promptCacheBytes = 256 << 20
    /// Seconds the model stays loaded after this request (Ollama's `keep_alive`: 0 unloads it
    /// when the request ends, negative keeps it until memory is needed); nil uses the instance's.
    public var keepAliveSeconds: Double?

    public init() {}
}
