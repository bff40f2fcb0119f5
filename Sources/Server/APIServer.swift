import Foundation
import OnDevice

/// `ondevice serve` as one object: the runtime, the model host, the API handler and the HTTP
/// server, started together and stopped together.
package final class APIServer: Sendable {
    package let http: HTTPServer
    package let host: ModelHost

    /// Builds the public API over the user's setup (model store at `ONDEVICE_HOME`, settings
    /// file), binds, and starts accepting.
    package static func start(_ configuration: ServerConfiguration) async throws -> APIServer {
        try configuration.validate()
        return try APIServer(ai: try await OnDeviceAI.fromEnvironment(), configuration: configuration)
    }

    /// The runtime's residency has pinned glibc's large-block threshold
    /// (`ProcessMemory.pinnedHeapThreshold`), which keeps a server's memory flat over days of
    /// requests (`Benchmarks soak`).
    /// Every endpoint runs on `ai`'s runtime, with the server's threads and context length.
    package init(ai: OnDeviceAI, configuration: ServerConfiguration) throws(ServerError) {
        try configuration.validate()
        var settings = OnDeviceAI.Configuration()
        settings.threads = configuration.threads
        settings.contextLength = configuration.contextLength
        host = ModelHost(ai: ai.sharingRuntime(configuration: settings), configuration: configuration)
        http = try HTTPServer(host: configuration.host, port: configuration.port, limits: configuration.limits,
                              handler: OpenAIServer(host: host))
        http.start()
    }

    package var port: UInt16 { http.port }

    /// Stops accepting, finishes (or after `grace` seconds cancels) running requests, and unloads
    /// the models.
    package func stop(grace: Double = 10) async {
        let http = http
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread { http.stop(grace: grace); done.resume() }.start()
        }
        await host.ai.shutdown()
    }
}
