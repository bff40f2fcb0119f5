import Foundation
import ModelStore
import OnDevice
import Runtime

/// Models for the engine-level benchmarks, which time what the public API hides.
enum BenchModels {
    /// The installed model for a catalog id, downloaded first when it is not on disk yet.
    static func installed(_ id: String) async throws -> InstalledModel {
        let store = try ModelStore()
        if let installed = try await store.resolve(id) { return installed }
        FileHandle.standardError.write(Data("downloading \(id)…\n".utf8))
        return try await store.pull(id)
    }

    /// A runtime with every engine of this build and no pressure monitoring.
    static func runtime() async throws -> OnDeviceRuntime {
        var dependencies = RuntimeDependencies.complete()
        dependencies.pressureProbe = nil
        return try await OnDeviceRuntime.make(dependencies)
    }
}
