import Foundation
import OnDevice
import Runtime
import Server

/// An in-process `ondevice serve` on an ephemeral loopback port, over the model store the
/// environment names (`ONDEVICE_HOME`), without the user's settings file.
enum TestServer {
    static func start(apiKey: String? = nil, limits: HTTPServer.Limits? = nil, maxRunning: Int = 2,
                      maxWaiting: Int = 32, budgetBytes: Int? = nil, threads: Int = 1) async throws -> APIServer {
        var dependencies = RuntimeDependencies.complete()
        dependencies.settingsFile = nil
        dependencies.pressureProbe = nil
        var settings = RuntimeSettings()
        settings.threads = threads
        settings.contextLength = 2048
        settings.memoryBudgetBytes = budgetBytes
        dependencies.initialSettings = settings
        let runtime = try await OnDeviceRuntime.make(dependencies)
        var c = ServerConfiguration()
        c.port = 0
        c.apiKey = apiKey
        c.maxRunningPerModel = maxRunning
        c.maxWaitingPerModel = maxWaiting
        if let limits { c.limits = limits }
        return try APIServer(ai: OnDeviceAI(runtime: runtime), configuration: c)
    }

    /// Limits small enough for hostile-input tests to hit quickly.
    static var tightLimits: HTTPServer.Limits {
        var l = HTTPServer.Limits()
        l.maxBodyBytes = 64 * 1024
        l.maxHeadBytes = 4096
        l.headTimeout = 1
        l.idleTimeout = 2
        l.bodyTimeout = 2
        return l
    }

    /// The golden references beside the repository (`../shared/golden`).
    static let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/golden").path

    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
}
