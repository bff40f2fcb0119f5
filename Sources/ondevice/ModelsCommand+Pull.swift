import Foundation
import Runtime
import ModelStore

extension ModelsCommand {
    /// `pull ID | hf:OWNER/REPO[@REVISION]/FILE [--sha256 HEX] [--id ID] | URL --sha256 HEX --id ID`.
    ///
    /// Starting a pull is resuming it: bytes left in staging by an interrupted run (even one killed
    /// with SIGKILL) are hashed and only the rest is requested. `--json` prints one JSON object per
    /// line: progress events, then `{"event": "installed", ...}`.
    ///
    /// `--base M` pulls a LoRA adapter (`--kind lora` implied) made for model M: once verified it
    /// is checked against M like `lora import` does, recorded with M as its base (so `lora list
    /// --base M` finds it), or removed again with the reason when it does not fit.
    static func pull(_ args: ArraySlice<String>) async throws {
        let a = try Arguments(args, options: ["sha256", "id", "kind", "base"], flags: ["json"])
        guard let text = a.positionals.first else { throw CLIError.missingArgument("ID, hf:OWNER/REPO[@REVISION]/FILE or URL") }
        guard a.positionals.count == 1 else { throw CLIError.io("unexpected argument '\(a.positionals[1])'") }
        if text.hasPrefix("http://") || text.hasPrefix("https://") {
            // A plain URL names neither the model nor its content: both must be given.
            _ = try a.require("sha256")
            _ = try a.require("id")
        }
        let spec = try PullSpec.parse(text, sha256: a.string("sha256"), id: a.string("id"))
        let base = a.string("base")
        let kind = try parseKind(a.string("kind"))
        if base != nil, kind != nil, kind != .lora { throw CLIError.io("--base names the model a LoRA adapter is for; it needs --kind lora") }
        let store = try ModelStore()
        let adapters = AdapterCatalog(store: store)
        let id = if let base { try await adapters.register(spec, base: base) } else { try await register(spec, kind: kind, in: store) }
        let json = a.has("json")
        let bar = ProgressBar(label: id)
        let progress: @Sendable (PullProgress) -> Void = { progress in
            if json { printJSONLine(progress.json) } else { bar.update(progress) }
        }
        let model = if base != nil { try await adapters.pull(id, progress: progress) } else { try await store.pull(id, progress: progress) }
        bar.finish()
        if json {
            var object = model.json
            object["event"] = "installed"
            try printJSON(object)
        } else {
            print("installed \(model.id) (\(byteText(model.entry.knownBytes))) at \(model.directory)")
        }
    }

    /// `import PATH --id ID`: copies a local file or folder into the store. A pinned catalog id
    /// takes its pinned sizes and digests and every file must match them.
    static func importModel(_ args: ArraySlice<String>) async throws {
        let a = try Arguments(args, options: ["id", "kind"], flags: ["json"])
        guard let path = a.positionals.first else { throw CLIError.missingArgument("PATH") }
        guard a.positionals.count == 1 else { throw CLIError.io("unexpected argument '\(a.positionals[1])'") }
        // Without --id, a file is named by its stem, lowercased (`en_US-joe-medium.onnx` →
        // `en_us-joe-medium`); a folder needs one.
        var isFolder: ObjCBool = false
        let id: String
        if let given = a.string("id") {
            id = given
        } else if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue {
            id = ((path as NSString).lastPathComponent as NSString).deletingPathExtension.lowercased()
        } else {
            id = try a.require("id")
        }
        let kind = try parseKind(a.string("kind"))
        let store = try ModelStore()
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        let model = try await store.importModel(id: id, from: absolute, kind: kind)
        if a.has("json") {
            try printJSON(model.json)
        } else {
            let verified = Catalog.isPinned(id) ? ", verified against the catalog" : ""
            print("imported \(model.id) (\(model.entry.files.count) files, \(byteText(model.entry.knownBytes))\(verified)) at \(model.directory)")
        }
    }

    /// The id to pull for `spec`, registering a custom model unless the same registration exists
    /// (re-registering would forget the sizes and digests an earlier pull pinned).
    private static func register(_ spec: PullSpec, kind: ModelKind?, in store: ModelStore) async throws -> String {
        let existing: CatalogEntry?
        switch spec {
        case .catalog:
            return try await store.register(spec)
        case .huggingFace(let id, let repo, let revision, let file, let sha256):
            existing = try? await store.catalog.entry(id: id)
            if let e = existing, e.source == .huggingFace(repo: repo, revision: revision), e.files.count == 1,
               e.files[0].sourcePath == file, sha256 == nil || e.files[0].sha256 == sha256, kind == nil || e.kind == kind {
                return id
            }
        case .url(let id, let url, let sha256):
            existing = try? await store.catalog.entry(id: id)
            if let e = existing, e.source == .url, e.files.count == 1, e.files[0].sourcePath == url.absoluteString,
               e.files[0].sha256 == sha256, kind == nil || e.kind == kind {
                return id
            }
        }
        return try await store.register(spec, kind: kind ?? .llm)
    }

    static func parseKind(_ text: String?) throws -> ModelKind? {
        guard let text else { return nil }
        guard let kind = ModelKind(rawValue: text) else {
            throw CLIError.invalidValue(option: "--kind", value: text,
                                        expected: "one of " + ModelKind.allCases.map(\.rawValue).joined(separator: ", "))
        }
        return kind
    }
}

/// One JSON object per line on stdout, from any thread: each line is a single write, so lines
/// from concurrent progress callbacks do not interleave.
func printJSONLine(_ object: [String: Any]) {
    guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else { return }
    FileHandle.standardOutput.write(data + Data("\n".utf8))
}
