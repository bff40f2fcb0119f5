import CLISupport
import Foundation
import OnDevice

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
        let source = try DownloadSource(text, sha256: a.string("sha256"))
        let base = a.string("base")
        let kind = try parseKind(a.string("kind"))
        if base != nil, kind != nil, kind != .lora { throw CLIError.io("--base names the model a LoRA adapter is for; it needs --kind lora") }
        let ai = OnDeviceAI()
        let library = try await ai.modelLibrary()
        let json = a.has("json")
        let bar = ProgressBar()
        let progress: @Sendable (DownloadProgress) -> Void = { progress in
            if json { printJSONLine(progress.json) } else { bar.update(progress) }
        }
        let model: ModelInfo
        if let base {
            let id: String
            if let source {
                id = try await ai.registerAdapter(a.string("id"), for: base, from: source).id
            } else {
                let registered = try await ai.adapters().first { $0.id == text }
                guard registered?.baseModel == base else {
                    throw CLIError.io("'\(text)' is not a LoRA adapter registered for '\(base)'; give its hf: spec or URL")
                }
                id = text
            }
            try await ai.downloadAdapter(id, progress: progress)
            model = try await library.info(id)
        } else {
            let id = if let source { try await library.register(source, id: a.string("id"), kind: kind) } else { text }
            model = try await library.download(id, progress: progress)
        }
        bar.finish()
        if json {
            var object = model.entryJSON
            object["event"] = "installed"
            try printJSON(object)
        } else {
            print("installed \(model.id) (\(byteText(model.knownBytes))) at \(model.directory)")
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
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        let model = try await OnDeviceAI().modelLibrary().importModel(at: absolute, id: id, kind: kind)
        if a.has("json") {
            try printJSON(model.entryJSON)
        } else {
            let verified = model.isPinned ? ", verified against the catalog" : ""
            print("imported \(model.id) (\(model.files.count) files, \(byteText(model.knownBytes))\(verified)) at \(model.directory)")
        }
    }

    static func parseKind(_ text: String?) throws -> ModelInfo.Kind? {
        guard let text else { return nil }
        guard let kind = ModelInfo.Kind(rawValue: text) else {
            throw CLIError.invalidValue(option: "--kind", value: text,
                                        expected: "one of " + ModelInfo.Kind.allCases.map(\.rawValue).joined(separator: ", "))
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
