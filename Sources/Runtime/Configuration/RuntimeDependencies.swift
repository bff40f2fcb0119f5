import EngineSupport
import Foundation
import ModelStore

/// Everything the runtime takes from its surroundings, each with a production default, so tests
/// build the same graph against fakes (a temporary store with a scripted transport, fixed memory,
/// scripted pressure, a manual clock, no settings file).
package struct RuntimeDependencies: Sendable {
    /// Store root, transport, retry, free-space probe.
    package var store: StoreConfiguration
    /// Where settings persist; nil keeps them in memory.
    package var settingsFile: SettingsFile?
    /// Settings to start from when there is no file (or instead of it).
    package var initialSettings: RuntimeSettings?
    package var memoryProbe: any MemoryProbing
    /// Nil turns pressure monitoring off.
    package var pressureProbe: (any PressureProbing)?
    package var pressureInterval: Duration
    package var clock: any RuntimeClock
    package var engines: EngineRegistry
    package var cpu: CPUFeatures
    package var eventBufferSize: Int
    /// Nil resolves against the store's catalog.
    package var resolver: (any BackendResolving)?

    package init(store: StoreConfiguration, settingsFile: SettingsFile? = nil, initialSettings: RuntimeSettings? = nil,
                 memoryProbe: any MemoryProbing = PlatformProbes.memory(), pressureProbe: (any PressureProbing)? = PlatformProbes.pressure(),
                 pressureInterval: Duration = .seconds(2), clock: any RuntimeClock = ContinuousRuntimeClock(),
                 engines: EngineRegistry = EngineRegistry(),
                 cpu: CPUFeatures = CPUFeatures.current(cores: ProcessInfo.processInfo.activeProcessorCount),
                 eventBufferSize: Int = 256, resolver: (any BackendResolving)? = nil) {
        self.store = store
        self.settingsFile = settingsFile
        self.initialSettings = initialSettings
        self.memoryProbe = memoryProbe
        self.pressureProbe = pressureProbe
        self.pressureInterval = pressureInterval
        self.clock = clock
        self.engines = engines
        self.cpu = cpu
        self.eventBufferSize = eventBufferSize
        self.resolver = resolver
    }

    /// The real machine: store and settings located from the environment (`ONDEVICE_HOME`,
    /// `XDG_DATA_HOME`, `XDG_CONFIG_HOME`, `ONDEVICE_SETTINGS`, `HF_ENDPOINT`, `HF_TOKEN`).
    package static func production(environment: [String: String] = ProcessInfo.processInfo.environment) -> RuntimeDependencies {
        RuntimeDependencies(store: .fromEnvironment(environment),
                            settingsFile: SettingsFile(path: SettingsFile.defaultPath(environment: environment)))
    }
}
