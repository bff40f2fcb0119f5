import ModelStore

/// The models an app will use, to fetch ahead of first use: operations (each brings the model
/// it runs on) and models named by id. `ondevice.json` writes one down:
/// `{"ops": ["transcribe", "summarize"], "models": ["gemma3-270m-q4_k_m"]}`.
public struct PrefetchPlan: Sendable, Equatable {
    var manifest: PrefetchManifest

    public init(operations: [Capability.Operation] = [], models: [String] = []) throws {
        manifest = PrefetchManifest(ops: [], extraModelIds: [])
        for operation in operations { add(operation) }
        for id in models { try add(model: id) }
    }

    /// Reads an `ondevice.json` manifest; a missing file or a wrong shape throws, naming the file.
    public init(manifestAt path: String) throws {
        do { manifest = try PrefetchManifest.load(path: path) } catch { throw OnDeviceError(store: error) }
    }

    public var operations: [Capability.Operation] { manifest.ops.map(Capability.Operation.init) }
    /// The models named by id, beyond those the operations bring.
    public var models: [String] { manifest.extraModelIds }
    /// Every model the plan fetches: each operation's, then those named, without repeats.
    public var modelIds: [String] { manifest.modelIds }

    public mutating func add(_ operation: Capability.Operation) {
        if !manifest.ops.contains(operation.op) { manifest.ops.append(operation.op) }
    }

    /// Adds the operation with short name `name` (`Capability.Operation.name`, as
    /// `ondevice.json` writes it); an unknown name throws.
    public mutating func add(operationNamed name: String) throws {
        do { add(Capability.Operation(try Op.named(name))) } catch { throw OnDeviceError(store: error) }
    }

    public mutating func add(model id: String) throws {
        do { try SafeName.checkModelId(id) } catch { throw OnDeviceError(store: error) }
        if !manifest.extraModelIds.contains(id) { manifest.extraModelIds.append(id) }
    }
}
