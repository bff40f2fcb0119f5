import Foundation
import ModelStore
import Runtime
import Platform
import Synchronization
import TestSupport

/// Retries without waiting.
struct NoSleep: Sleeping {
    func sleep(seconds: Double) async throws(StoreError) {
        if Task.isCancelled { throw .cancelled }
    }
}

struct FixedFreeSpace: FreeSpaceProbing {
    var bytes: Int64
    func freeBytes(at path: String) -> Int64? { bytes }
}

/// Counts how often the budget is computed (each `Residency.configure` recomputes it).
final class CountingMemoryProbe: MemoryProbing {
    private let calls = Atomic<Int>(0)
    let value: MemorySnapshot
    init(_ value: MemorySnapshot) { self.value = value }
    func snapshot() -> MemorySnapshot {
        calls.add(1, ordering: .relaxed)
        return value
    }
    var count: Int { calls.load(ordering: .relaxed) }
}

/// Resolves fingerprints like the store; a lookup after `holdNext()` waits at the returned gate.
final class GatedResolver: BackendResolving {
    private let gates = Locked<[Gate]>([])
    private let waitingCount = Atomic<Int>(0)

    /// The next lookup waits until the returned gate opens.
    func holdNext() -> Gate {
        let gate = Gate()
        gates.withLock { $0.append(gate) }
        return gate
    }

    func fingerprint(modelId: String) async -> String? {
        let gate = gates.withLock { $0.isEmpty ? nil : $0.removeFirst() }
        if let gate { await gate.wait() }
        return "fingerprint-of-\(modelId)"
    }
}

/// A temporary store served by a loopback server, with tiny models to register, and the
/// runtime graph built on fakes.
final class RuntimeFixture: Sendable {
    let directory: TemporaryDirectory
    let server: LoopbackHTTPServer
    let clock = ManualClock()

    init() throws {
        directory = try TemporaryDirectory(prefix: "runtime")
        server = try LoopbackHTTPServer()
    }

    deinit { server.stop() }

    var root: String { directory.path + "/models" }

    /// A tiny random decoder served at `org/<id>`, and its catalog entry.
    func tinyModel(_ id: String, architecture: String = "llama", seed: UInt64 = 7) -> (entry: CatalogEntry, bytes: [UInt8]) {
        var tiny = TinyModel()
        tiny.architecture = architecture
        tiny.seed = seed
        tiny.contextLength = 256
        let bytes = tiny.writer().bytes()
        server.serve(path: "/org/\(id)/resolve/main/model.gguf", body: bytes)
        let entry = CatalogEntry.huggingFace(
            id: id, kind: .llm, license: "test", repo: "org/\(id)", revision: "main", variant: "v",
            files: [ModelFile(name: "model.gguf", bytes: Int64(bytes.count), sha256: SHA256.hex(of: bytes), sourcePath: "model.gguf")])
        return (entry, bytes)
    }

    func storeConfiguration(freeBytes: Int64? = nil, stallTimeout: Double = 30) -> StoreConfiguration {
        StoreConfiguration(root: root, hfEndpoint: server.baseURL, retry: RetryPolicy(maxAttempts: 2), sleeper: NoSleep(),
                           freeSpace: freeBytes.map { FixedFreeSpace(bytes: $0) } ?? StatvfsFreeSpace(),
                           stallTimeout: stallTimeout, progressInterval: 0)
    }

    func dependencies(budget: Int = 1 << 30, freeBytes: Int64? = nil, settings: RuntimeSettings = RuntimeSettings(),
                      settingsFile: SettingsFile? = nil, memoryProbe: (any MemoryProbing)? = nil,
                      resolver: (any BackendResolving)? = nil) -> RuntimeDependencies {
        var settings = settings
        if settings.memoryBudgetBytes == nil { settings.memoryBudgetBytes = budget }
        return RuntimeDependencies(
            store: storeConfiguration(freeBytes: freeBytes), settingsFile: settingsFile,
            initialSettings: settingsFile == nil ? settings : nil,
            memoryProbe: memoryProbe ?? FixedMemoryProbe(MemorySnapshot(memAvailable: 1 << 34)),
            pressureProbe: nil, clock: clock, cpu: CPUFeatures(architecture: "x86_64", flags: ["avx2", "f16c", "fma"], cores: 2),
            eventBufferSize: 4096, resolver: resolver)
    }

    /// Registers `models` in the store (as `ondevice models pull --hf` would, in another process),
    /// then builds the runtime over it.
    func runtime(_ dependencies: RuntimeDependencies, models: [CatalogEntry] = []) async throws -> OnDeviceRuntime {
        let store = try ModelStore(configuration: dependencies.store)
        for entry in models { try await store.register(entry) }
        return try await OnDeviceRuntime.make(dependencies)
    }
}
