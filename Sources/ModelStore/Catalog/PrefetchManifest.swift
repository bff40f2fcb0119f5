import Foundation

// ondevice.json, the app's declaration of what it will use:
//   { "ops": ["transcribe", "summarize"], "models": ["gemma3-270m-q4_k_m"] }
// `ops` (required, array of Op names) go through Op.defaultModelId; `models` (optional, array of
// catalog ids) adds models no op maps to. Other keys are ignored.

/// The models an app declares for prefetch.
package struct PrefetchManifest: Sendable, Equatable {
    package var ops: [Op]
    package var extraModelIds: [String]

    package init(ops: [Op], extraModelIds: [String] = []) {
        self.ops = ops
        self.extraModelIds = extraModelIds
    }

    /// Model ids to fetch: each op's default model, then the extra ids, without repeats.
    package var modelIds: [String] {
        var seen = Set<String>()
        return (Op.modelIds(for: ops) + extraModelIds).filter { seen.insert($0).inserted }
    }

    package static func load(path: String) throws(StoreError) -> PrefetchManifest {
        guard let data = FileSystem.readData(path) else { throw .io(path: path, errno: ENOENT) }
        return try parse(data, path: path)
    }

    package static func parse(_ data: Data, path: String = "ondevice.json") throws(StoreError) -> PrefetchManifest {
        guard let object = try? JSONSerialization.jsonObject(with: data), let root = object as? [String: Any] else {
            throw .manifestInvalid(path: path, detail: "not a JSON object")
        }
        guard let names = root["ops"] as? [String] else { throw .manifestInvalid(path: path, detail: "\"ops\" must be an array of strings") }
        var ops = [Op]()
        for name in names { ops.append(try Op.named(name)) }
        var extra = [String]()
        if let models = root["models"] {
            guard let ids = models as? [String] else { throw .manifestInvalid(path: path, detail: "\"models\" must be an array of strings") }
            for id in ids { try SafeName.checkModelId(id) }
            extra = ids
        }
        return PrefetchManifest(ops: ops, extraModelIds: extra)
    }
}

extension ModelStore {
    /// Fetches the default models of `ops` ahead of first use, through the same op → model mapping
    /// the runtime uses, into the same layout: afterwards a prefetched model cannot be told from
    /// one fetched on first use.
    package func prefetch(ops: [Op], progress: @escaping @Sendable (PullProgress) -> Void = { _ in }) async throws(StoreError) -> [InstalledModel] {
        try await prefetch(PrefetchManifest(ops: ops), progress: progress)
    }

    package func prefetch(_ manifest: PrefetchManifest, progress: @escaping @Sendable (PullProgress) -> Void = { _ in }) async throws(StoreError) -> [InstalledModel] {
        for id in manifest.modelIds { _ = try catalog.entry(id: id) }  // fail before any download
        var installed = [InstalledModel]()
        for id in manifest.modelIds { installed.append(try await pull(id, progress: progress)) }
        return installed
    }

    /// The installed model for an op's default model, pulling it on first use (the fallback when
    /// nothing was prefetched).
    package func model(for op: Op, progress: @escaping @Sendable (PullProgress) -> Void = { _ in }) async throws(StoreError) -> InstalledModel {
        if let installed = try resolve(op.defaultModelId) { return installed }
        return try await pull(op.defaultModelId, progress: progress)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
