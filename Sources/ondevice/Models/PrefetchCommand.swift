import CLISupport
import Foundation
import OnDevice

/// `ondevice prefetch [--manifest ondevice.json] [--ops op,op] [--json]`: fetches the models an
/// app declares ahead of first use, through the same op → model mapping the runtime uses, so a
/// prefetched model is indistinguishable from one fetched on first use.
enum PrefetchCommand {
    static let defaultManifest = "ondevice.json"

    static func run(_ args: ArraySlice<String>) async throws {
        let a = try Arguments(args, options: ["manifest", "ops"], flags: ["json"])
        if let extra = a.positionals.first { throw CLIError.io("unexpected argument '\(extra)'") }
        let plan = try loadPlan(path: a.string("manifest"), ops: a.string("ops"))
        let json = a.has("json")
        let bar = ProgressBar()
        let models = try await OnDeviceAI().modelLibrary().prefetch(plan) { progress in
            if json { printJSONLine(progress.json) } else { bar.update(progress) }
        }
        bar.finish()
        if json {
            try printJSON(["event": "prefetched", "ops": plan.operations.map(\.name), "models": models.map(\.entryJSON)])
            return
        }
        for model in models {
            print("ready \(model.id) (\(byteText(model.knownBytes))) at \(model.directory)")
        }
    }

    /// `--ops` alone, the manifest alone (default `./ondevice.json`), or both merged.
    static func loadPlan(path: String?, ops: String?) throws -> PrefetchPlan {
        var plan = try PrefetchPlan()
        if path != nil || ops == nil {
            let file = path ?? defaultManifest
            guard FileManager.default.fileExists(atPath: file) else {
                throw CLIError.io(path == nil ? "no \(defaultManifest) here; pass --manifest PATH or --ops op,op (ops: \(opNames))"
                                              : "\(file): no such file")
            }
            plan = try PrefetchPlan(manifestAt: file)
        }
        if let ops {
            for name in ops.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !name.isEmpty {
                try plan.add(operationNamed: name)
            }
        }
        guard !plan.modelIds.isEmpty else { throw CLIError.io("nothing to prefetch: no ops or models given") }
        return plan
    }

    static var opNames: String { Capability.Operation.allCases.map(\.name).joined(separator: ", ") }
}
