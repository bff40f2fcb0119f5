import CLISupport
import Foundation
import OnDevice

extension ModelsCommand {
    /// `info ID [--verify] [--json]`: catalog entry, state, files with sizes and digests, license,
    /// source and validation. Validation reuses the cached result while the files' metadata is
    /// unchanged; `--verify` hashes every file regardless.
    static func info(_ args: ArraySlice<String>) async throws {
        let a = try Arguments(args, options: [], flags: ["json", "verify"])
        guard let id = a.positionals.first else { throw CLIError.missingArgument("ID") }
        guard a.positionals.count == 1 else { throw CLIError.io("unexpected argument '\(a.positionals[1])'") }
        let library = try await OnDeviceAI().modelLibrary()
        let model = try await library.info(id)
        let report: ModelValidation? = model.state == .installed ? try await library.validate(id, rehash: a.has("verify")) : nil
        let present = model.files.map { fileSize($0.path) }
        if a.has("json") {
            var object = model.json
            object["files"] = zip(model.files, present).map { file, onDisk -> [String: Any] in
                ["name": file.name, "bytes": file.bytes ?? NSNull(), "sha256": file.sha256 ?? NSNull(),
                 "source_path": file.sourcePath, "bytes_on_disk": onDisk ?? NSNull()]
            }
            object["validation"] = report.map { r -> [String: Any] in
                ["valid": r.isValid, "problem": r.problem ?? NSNull(), "reused_cache": r.reusedEarlierCheck, "bytes_hashed": r.bytesHashed]
            } ?? NSNull()
            try printJSON(object)
            return
        }
        var lines: [(String, String)] = [
            ("id", model.id), ("kind", model.kind.rawValue), ("state", model.state.rawValue),
            ("license", model.license), ("source", model.source.text + (model.isPinned ? " (pinned)" : "")),
            ("directory", model.directory),
            ("size", "\(byteText(model.totalBytes)), \(byteText(model.bytesOnDisk)) on disk"),
            ("last used", model.lastUsed.map(timeText) ?? "never"),
        ]
        lines.append(("validation", report.map(validationText) ?? "not installed"))
        for (name, value) in lines { print(name.padding(toLength: 11, withPad: " ", startingAt: 0) + value) }
        print("files")
        var rows = [["  NAME", "SIZE", "ON DISK", "SHA256"]]
        for (file, onDisk) in zip(model.files, present) {
            rows.append(["  " + file.name, byteText(file.bytes), onDisk.map { byteText($0) } ?? "-", file.sha256 ?? "(not known yet)"])
        }
        printTable(rows)
    }

    private static func validationText(_ r: ModelValidation) -> String {
        if let problem = r.problem { return "FAILED: \(problem)" }
        if r.reusedEarlierCheck { return "ok (files unchanged since the last check; not re-hashed)" }
        return "ok (\(byteText(r.bytesHashed)) hashed)"
    }
}

/// The size of the regular file at `path`, nil when there is none.
func fileSize(_ path: String) -> Int64? {
    guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
          attributes[.type] as? FileAttributeType == .typeRegular else { return nil }
    return (attributes[.size] as? NSNumber)?.int64Value
}
