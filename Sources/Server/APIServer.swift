import Foundation
import OnDevice
import Runtime

/// `ondevice serve` as one object: the runtime, the model host, the API handler and the HTTP
/// server, started together and stopped together.
package final class APIServer: Sendable {
    package let http: HTTPServer
    package let host: ModelHost

    /// Builds the runtime from the environment (model store at `ONDEVICE_HOME`), binds, and
    /// starts accepting.
    package static func start(_ configuration: ServerConfiguration) async throws -> APIServer {
        try configuration.validate()
        // Every engine of this build, registered where the public API registers them.
        let runtime = try await OnDeviceRuntime.make(.complete())
        return try APIServer(runtime: runtime, configuration: configuration)
    }

    /// The runtime's residency has pinned glibc's large-block threshold
    /// (`ProcessMemory.pinnedHeapThreshold`), which keeps a server's memory flat over days of
    /// requests (`Benchmarks soak`).
    package init(runtime: OnDeviceRuntime, configuration: ServerConfiguration) throws(ServerError) {
        try configuration.validate()
        host = ModelHost(runtime: runtime, configuration: configuration)
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
        await host.runtime.shutdown()
    }
}
