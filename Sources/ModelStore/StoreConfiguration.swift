import Foundation

/// Everything a store needs from its surroundings; tests replace the transport, sleeper and
/// free-space probe, and point the Hugging Face base URL at a loopback server.
package struct StoreConfiguration: Sendable {
    package var root: String
    /// `{hfEndpoint}/{repo}/resolve/{revision}/{file}`; from `HF_ENDPOINT`. The project names
    /// no hub host itself: without an endpoint, Hugging Face pulls fail with `.noHubEndpoint`.
    package var hfEndpoint: URL?
    /// From `HF_TOKEN`; sent as a Bearer token to the Hugging Face host only.
    package var hfToken: String?
    package var fetcher: any HTTPFetching
    package var retry: RetryPolicy
    package var sleeper: any Sleeping
    package var freeSpace: any FreeSpaceProbing
    /// Seconds without a byte before an attempt is abandoned and retried.
    package var stallTimeout: Double
    /// Files of one model downloaded at once.
    package var maxConcurrentFiles: Int
    /// Minimum gap between progress events, in seconds (the last event is always sent).
    package var progressInterval: Double

    package init(root: String, hfEndpoint: URL? = nil, hfToken: String? = nil,
                 fetcher: any HTTPFetching = SchemeRoutingFetcher(), retry: RetryPolicy = RetryPolicy(),
                 sleeper: any Sleeping = TaskSleeper(), freeSpace: any FreeSpaceProbing = StatvfsFreeSpace(),
                 stallTimeout: Double = 30, maxConcurrentFiles: Int = 4, progressInterval: Double = 0.1) {
        self.root = root
        self.hfEndpoint = hfEndpoint
        self.hfToken = hfToken
        self.fetcher = fetcher
        self.retry = retry
        self.sleeper = sleeper
        self.freeSpace = freeSpace
        self.stallTimeout = stallTimeout
        self.maxConcurrentFiles = max(1, maxConcurrentFiles)
        self.progressInterval = progressInterval
    }

    /// Root, endpoint and token from the environment, the way huggingface_hub reads them.
    package static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> StoreConfiguration {
        var configuration = StoreConfiguration(root: defaultRoot(environment: environment))
        if let endpoint = environment["HF_ENDPOINT"].flatMap({ URL(string: $0) }), endpoint.scheme != nil {
            configuration.hfEndpoint = endpoint
        }
        if let token = environment["HF_TOKEN"], !token.isEmpty { configuration.hfToken = token }
        return configuration
    }

    /// `ONDEVICE_HOME`, else `$XDG_DATA_HOME/ondevice/models`, else `~/.local/share/ondevice/models`.
    package static func defaultRoot(environment: [String: String]) -> String {
        if let home = environment["ONDEVICE_HOME"], !home.isEmpty { return home }
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") { return data + "/ondevice/models" }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.local/share/ondevice/models"
    }

    /// Where a catalog file is fetched from.
    package func sourceURL(for entry: CatalogEntry, file: ModelFile) throws(StoreError) -> URL {
        switch entry.source {
        case .huggingFace(let repo, let revision):
            guard let hfEndpoint else { throw .noHubEndpoint(repo: repo) }
            let path = "\(repo)/resolve/\(revision)/\(file.sourcePath)"
            guard let encoded = path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) else {
                throw .unsupportedURL(url: path)
            }
            let base = hfEndpoint.absoluteString.hasSuffix("/") ? String(hfEndpoint.absoluteString.dropLast()) : hfEndpoint.absoluteString
            guard let url = URL(string: base + "/" + encoded) else { throw .unsupportedURL(url: base + "/" + path) }
            return url
        case .url:
            guard let url = URL(string: file.sourcePath), ["http", "https"].contains(url.scheme?.lowercased() ?? "") else {
                throw .unsupportedURL(url: file.sourcePath)
            }
            return url
        case .local(let path):
            throw .unsupportedURL(url: "file://" + path)
        }
    }
}
