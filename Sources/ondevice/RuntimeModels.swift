import Foundation
import OnDevice
import Platform
import Runtime

/// The CLI's way to a model of any kind: a lease from the runtime's residency cache, the same
/// path the public API takes. `--model` may be a catalog id (downloaded on first use) or a path,
/// which is loaded through the same cache under its path as id.
enum RuntimeModels {
    /// A runtime with every engine of this build and no pressure monitoring (one-shot commands).
    static func runtime() async throws -> OnDeviceRuntime {
        var dependencies = RuntimeDependencies.complete()
        dependencies.pressureProbe = nil
        return try await OnDeviceRuntime.make(dependencies)
    }

    /// An embedding model: a catalog id, a sentence-transformers folder or a nomic-bert `.gguf`.
    static func embedder(_ argument: String, threads: Int?, runtime: OnDeviceRuntime) async throws -> EngineLease<ResidentEmbedder> {
        let threads = threads ?? ProcessInfo.processInfo.activeProcessorCount
        guard FileManager.default.fileExists(atPath: argument) else {
            return try await runtime.lease(ResidentEmbedder.self, modelId: argument, options: LoadOptions(threads: threads))
        }
        return try await runtime.residency.lease(ResidentEmbedder.self,
                                                 loader: EmbedderLoader(modelId: argument, path: argument, revision: nil, identityId: nil, threads: threads))
    }

    /// Leases that last the whole command (an index keeps using its embedder until it exits).
    static let held = Locked<[EngineLease<ResidentEmbedder>]>([])
}
