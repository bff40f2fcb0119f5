import Foundation
import ModelStore
import Runtime

/// `ondevice lora list|import|rm`: LoRA adapters in the model store. An adapter is an artifact
/// like a model (id, file, size, sha256, same install and verify rules) whose entry also names
/// the base model it was checked against; `--lora ID` then finds it by id. The lifecycle itself
/// is the runtime's `AdapterCatalog`, which the SDK uses too.
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
        let adapters = await AdapterCatalog(store: try ModelStore()).adapters(for: a.string("base"))
        if a.has("json") {
            try printJSON(["adapters": adapters.map(json)])
            return
        }
        var rows = [["ID", "BASE", "STATE", "SIZE", "SHA256"]]
        for m in adapters {
            rows.append([m.entry.id, m.entry.baseModel ?? "?", m.state.rawValue,
                         byteText(m.entry.totalBytes ?? m.bytesOnDisk), String((m.entry.files.first?.sha256 ?? "?").prefix(16))])
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
        let store = try ModelStore()
        let installed = try await AdapterCatalog(store: store).importAdapter(at: absolute, id: id, base: base)
        if a.has("json") {
            try printJSON(json(try await store.get(id)))
        } else {
            print("imported LoRA \(id) for \(base) (\(byteText(installed.entry.knownBytes)), sha256 \(installed.entry.files.first?.sha256 ?? "?")) at \(installed.directory)")
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
        let adapters = AdapterCatalog(store: try ModelStore())
        var removed: [String] = []
        for id in a.positionals {
            guard try await adapters.remove(id) else { throw StoreError.notInstalled(id: id) }
            removed.append(id)
            if !a.has("json") { print("removed \(id)") }
        }
        if a.has("json") { try printJSON(["removed": removed]) }
    }

    static func json(_ m: ModelStatus) -> [String: Any] {
        let file = m.entry.files.first
        return ["id": m.entry.id, "base_model": m.entry.baseModel ?? NSNull(), "state": m.state.rawValue,
                "file": file?.name ?? NSNull(), "bytes": file?.bytes.map { Int($0) } ?? NSNull(),
                "sha256": file?.sha256 ?? NSNull(), "directory": m.directory]
    }
}
