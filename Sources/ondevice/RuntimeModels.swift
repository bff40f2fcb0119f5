import Foundation
import OnDevice
import Runtime

/// The runtime for the commands not yet on the public API (photo culling's face models, the TTS
/// bench); every other command reaches models through `OnDeviceAI`.
enum RuntimeModels {
    /// A runtime with every engine of this build and no pressure monitoring (one-shot commands).
    static func runtime() async throws -> OnDeviceRuntime {
        var dependencies = RuntimeDependencies.complete()
        dependencies.pressureProbe = nil
        return try await OnDeviceRuntime.make(dependencies)
    }
}
