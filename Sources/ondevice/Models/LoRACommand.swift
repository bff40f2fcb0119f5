import CLISupport
import Foundation
import OnDevice

/// `ondevice lora list|import|rm`: LoRA adapters in the model store. An adapter is an artifact
/// like a model (id, file, size, sha256, same install and verify rules) whose entry also names
/// the base model it was checked against; `--lora ID` then finds it by id. The lifecycle is the
/// public API's (`OnDeviceAI.importAdapter`, `downloadAdapter`, `removeAdapter`).
enum LoRACommand {
    static let subcommands = "list, pull, import, rm"

    static func run(_ args: ArraySlice<String>) async throws {
        guard let sub = args.first else { throw CLIError.missingArgument("lora subcommand (\(subcommands))") }
        let rest = args.dropFirst()
        switch sub {
        case "list", "ls": try await list(rest)
        case "import": try await importAdapter(rest)
        case "pull": try await pull(rest)
        case "rm", "remove": try await remove(rest)
        default: throw CLIError.unknownCommand("lora \(sub)")
        }
    }

    /// `list [--base M]`: adapters in the store (only those made for M with `--base`).
    static func list(_ args: ArraySlice<String>) async throws {
        let a = try Arguments(args, options: ["base"], flags: ["json"])
        try ModelsCommand.noPositionals(a)
        let base = a.string("base")
        let adapters = try await OnDeviceAI().modelLibrary().list().filter { $0.kind == .lora && (base == nil || $0.baseModel == base) }
        if a.has("json") {
            try printJSON(["adapters": adapters.map(json)])
            return
        }
        var rows = [["ID", "BASE", "STATE", "SIZE", "SHA256"]]
        for m in adapters {
            rows.append([m.id, m.baseModel ?? "?", m.state.rawValue,
                         byteText(m.totalBytes ?? m.bytesOnDisk), String((m.files.first?.sha256 ?? "?").prefix(16))])
        }
        ModelsCommand.printTable(rows)
    }

    /// `import PATH --id ID --base M`: checks the adapter against model M (architecture, every
    /// adapted weight's name and shape), then copies and hashes it into the store.
    static func importAdapter(_ args: ArraySlice<String>) async throws {
        let a = try Arguments(args, options: ["id", "base"], flags: ["json"])
        guard let path = a.positionals.first else { throw CLIError.missingArgument("PATH") }
        guard a.positionals.count == 1 else { throw CLIError.io("unexpected argument '\(a.positionals[1])'") }
        let id = try a.require("id"), base = try a.require("base")
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        let ai = OnDeviceAI()
        try await ai.importAdapter(at: absolute, id: id, for: base)
        let installed = try await ai.modelLibrary().info(id)
        if a.has("json") {
            try printJSON(json(installed))
        } else {
            print("imported LoRA \(id) for \(base) (\(byteText(installed.knownBytes)), sha256 \(installed.files.first?.sha256 ?? "?")) at \(installed.directory)")
        }
    }

    /// `pull SPEC --base M [--id ID] [--sha256 HEX] [--json]`: `models pull --base M`, an adapter
    /// for M through the store (resumed, verified, installed atomically, then checked against M).
    static func pull(_ args: ArraySlice<String>) async throws {
        guard args.contains("--base") || args.contains(where: { $0.hasPrefix("--base=") }) else {
            throw CLIError.missingArgument("--base (the model the adapter is for)")
        }
        try await ModelsCommand.pull(args)
    }

    /// `rm ID...`: deletes adapters' files (refuses ids that are not adapters).
    static func remove(_ args: ArraySlice<String>) async throws {
        let a = try Arguments(args, options: [], flags: ["json"])
        guard !a.positionals.isEmpty else { throw CLIError.missingArgument("ID") }
        let ai = OnDeviceAI()
        var removed: [String] = []
        for id in a.positionals {
            try await ai.removeAdapter(id)
            removed.append(id)
            if !a.has("json") { print("removed \(id)") }
        }
        if a.has("json") { try printJSON(["removed": removed]) }
    }

    static func json(_ m: ModelInfo) -> [String: Any] {
        let file = m.files.first
        return ["id": m.id, "base_model": m.baseModel ?? NSNull(), "state": m.state.rawValue,
                "file": file?.name ?? NSNull(), "bytes": file?.bytes.map { Int($0) } ?? NSNull(),
                "sha256": file?.sha256 ?? NSNull(), "directory": m.directory]
    }
}
