import ModelStore
import Runtime

/// Progress of one model or adapter download: what `prefetch` and `downloadAdapter` report.
public struct DownloadProgress: Sendable, Equatable {
    /// The catalog id being fetched.
    public var model: String
    public var receivedBytes: Int64
    /// Nil while the size is unknown (a custom model whose server has not said yet).
    public var totalBytes: Int64?
    public var bytesPerSecond: Double
    public var etaSeconds: Double?

    init(_ p: PullProgress) {
        model = p.id
        receivedBytes = p.receivedBytes
        totalBytes = p.totalBytes
        bytesPerSecond = p.bytesPerSecond
        etaSeconds = p.etaSeconds
    }
}

extension OnDeviceAI {
    /// Fetches the models `operations` use ahead of first use (the Background Assets analogue),
    /// through the same op → model mapping the first-use download takes, so a prefetched model
    /// is indistinguishable from one fetched when first needed. Already-installed models cost a
    /// metadata check. Returns the catalog ids now installed.
    @discardableResult
    public func prefetch(_ operations: [Capability.Operation],
                         progress: @escaping @Sendable (DownloadProgress) -> Void = { _ in }) async throws -> [String] {
        try await modelLibrary().prefetch(PrefetchPlan(operations: operations), progress: progress).map(\.id)
    }
}
