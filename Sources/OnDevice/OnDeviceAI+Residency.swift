import Runtime

extension OnDeviceAI {
    /// Loads model `id` (any kind; downloaded first if it is not installed) and keeps it
    /// resident for `keepAliveSeconds` after, as if an op had just used it: an app warms the
    /// model it will need so the first reply does not wait for the load (Ollama's preload).
    /// Nil uses the instance's keep-alive; 0 lets it go at once; negative keeps it until memory
    /// is needed. A text model loads with the context and threads its ops use.
    public func load(_ id: String, keepAliveSeconds: Double? = nil) async throws {
        let runtime = try await runtime()
        let lease: any ModelLease
        do {
            lease = try await runtime.leaseAnyKind(modelId: id, textOptions: textLoadOptions(runtime), options: LoadOptions(threads: modelThreads))
        } catch .cancelled {
            throw OnDeviceError.cancelled
        } catch {
            throw OnDeviceError.modelUnavailable(model: id, reason: error.description)
        }
        await lease.release(keepAlive: keepAliveSeconds.map(KeepAlive.init(seconds:)))
    }

    /// The models loaded now, and the memory budget they share.
    public func residency() async throws -> ResidencyStatus {
        ResidencyStatus(await try runtime().residency.snapshot())
    }

    /// Unloads model `id` now if nothing holds it, else as soon as the last op holding it ends
    /// (Ollama's `keep_alive: 0`). A model that is not loaded is left as it is.
    public func unload(_ id: String) async throws {
        await try runtime().residency.unload(id)
    }
}
