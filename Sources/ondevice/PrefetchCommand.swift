import Foundation
import Runtime
import ModelStore

/// `ondevice prefetch [--manifest ondevice.json] [--ops op,op] [--json]`: fetches the models an
/// app declares ahead of first use, through the same op → model mapping the runtime uses, so a
/// prefetched model is indistinguishable from one fetched on first use.
enum PrefetchCommand {
    static let defaultManifest = "ondevice.json"

    static func run(_ args: ArraySlice<String>) async throws {
        let a = try Arguments(args, options: ["manifest", "ops"], flags: ["json"])
        if let extra = a.positionals.first { throw CLIError.io("unexpected argument '\(extra)'") }
        let manifest = try loadManifest(path: a.string("manifest"), ops: a.string("ops"))
        let store = try ModelStore()
        let json = a.has("json")
        let bar = ProgressBar()
        let models = try await store.prefetch(manifest) { progress in
            if json { printJSONLine(progress.json) } else { bar.update(progress) }
        }
        bar.finish()
        if json {
            try printJSON(["event": "prefetched", "ops": manifest.ops.map(\.rawValue), "models": models.map(\.json)])
            return
        }
        for model in models {
            print("ready \(model.id) (\(byteText(model.entry.knownBytes))) at \(model.directory)")
        }
    }

    /// `--ops` alone, the manifest alone (default `./ondevice.json`), or both merged.
    static func loadManifest(path: String?, ops: String?) throws -> PrefetchManifest {
        var manifest = PrefetchManifest(ops: [])
        if path != nil || ops == nil {
            let file = path ?? defaultManifest
            guard FileManager.default.fileExists(atPath: file) else {
                throw CLIError.io(path == nil ? "no \(defaultManifest) here; pass --manifest PATH or --ops op,op (ops: \(opNames))"
                                              : "\(file): no such file")
            }
            manifest = try PrefetchManifest.load(path: file)
        }
        if let ops {
            for name in ops.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !name.isEmpty {
                let op = try Op.named(name)
                if !manifest.ops.contains(op) { manifest.ops.append(op) }
            }
        }
        guard !manifest.modelIds.isEmpty else { throw CLIError.io("nothing to prefetch: no ops or models given") }
        return manifest
    }

    static var opNames: String { Op.allCases.map(\.rawValue).joined(separator: ", ") }
}
