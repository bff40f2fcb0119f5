import OnDevice

/// How `ondevice serve` runs. Every field has a default fit for a local server.
package struct ServerConfiguration: Sendable {
    /// IPv4 address to bind; anything but loopback requires `apiKey`.
    package var host = "127.0.0.1"
    /// TCP port; 0 lets the kernel pick (tests).
    package var port: UInt16 = 8080
    /// When set, every request must carry `Authorization: Bearer <apiKey>`.
    package var apiKey: String?
    /// Model ids the server offers; nil offers every installed model it can run.
    package var models: [String]?
    /// Requests computing at once per model (each has its own session and KV cache; sessions
    /// decoding together share forward passes), at most what the memory budget holds.
    package var maxRunningPerModel = 8
    /// Whether a model's running requests share forward passes (continuous batching); off,
    /// each computes on its own (for comparison).
    package var batching = true
    /// Bytes of copied session caches each model may keep (`TextServingOptions.promptCacheBytes`).
    package var promptCacheBytes = TextServingOptions().promptCacheBytes
    /// Requests waiting per model before new ones get 429.
    package var maxWaitingPerModel = 32
    /// Context length of text sessions; nil uses the runtime's setting.
    package var contextLength: Int?
    /// Kernel threads per request; nil uses the runtime's setting.
    package var threads: Int?
    package var limits = HTTPServer.Limits()

    package init() {}

    /// Whether `host` keeps the server on this machine.
    package var isLoopback: Bool { host.hasPrefix("127.") || host == "localhost" }

    /// Refuses configurations that would expose the models without a key.
    package func validate() throws(ServerError) {
        if !isLoopback && (apiKey ?? "").isEmpty { throw .apiKeyRequired(host: host) }
    }
}
