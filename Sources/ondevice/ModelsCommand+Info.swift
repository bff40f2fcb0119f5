import Foundation
import Runtime
import ModelStore

extension ModelsCommand {
    /// `info ID [--verify] [--json]`: catalog entry, state, files with sizes and digests, license,
    /// source and validation. Validation reuses the cached result while the files' metadata is
    /// unchanged; `--verify` hashes every file regardless.
    static func info(_ args: ArraySlice<String>) async throws {
        let a = try Arguments(args, options: [], flags: ["json", "verify"])
        guard let id = a.positionals.first else { throw CLIError.missingArgument("ID") }
        guard a.positionals.count == 1 else { throw CLIError.io("unexpected argument '\(a.positionals[1])'") }
        let store = try ModelStore()
        let status = try await store.get(id)
        let report: ValidationReport? = status.state == .installed ? try await store.validate(id, force: a.has("verify")) : nil
        let present = status.entry.files.map { FileSystem.fileSize(status.directory + "/" + $0.name) }
        if a.has("json") {
            var object = status.json
            object["files"] = zip(status.entry.files, present).map { file, onDisk -> [String: Any] in
                ["name": file.name, "bytes": file.bytes ?? NSNull(), "sha256": file.sha256 ?? NSNull(),
                 "source_path": file.sourcePath, "bytes_on_disk": onDisk ?? NSNull()]
            }
            object["validation"] = report.map { r -> [String: Any] in
                ["valid": r.isValid, "problem": r.problem.map { "\($0)" } ?? NSNull(),
                 "reused_cache": r.reusedCache, "bytes_hashed": r.bytesHashed]
            } ?? NSNull()
            try printJSON(object)
            return
        }
        let entry = status.entry
        var lines: [(String, String)] = [
            ("id", entry.id), ("kind", entry.kind.rawValue), ("state", status.state.rawValue),
            ("license", entry.license), ("source", entry.source.text + (Catalog.isPinned(id) ? " (pinned)" : "")),
            ("directory", status.directory),
            ("size", "\(byteText(entry.totalBytes)), \(byteText(status.bytesOnDisk)) on disk"),
            ("last used", status.lastUsed.map(timeText) ?? "never"),
        ]
        lines.append(("validation", report.map(validationText) ?? "not installed"))
        for (name, value) in lines { print(name.padding(toLength: 11, withPad: " ", startingAt: 0) + value) }
        print("files")
        var rows = [["  NAME", "SIZE", "ON DISK", "SHA256"]]
        for (file, onDisk) in zip(entry.files, present) {
            rows.append(["  " + file.name, byteText(file.bytes), onDisk.map { byteText($0) } ?? "-", file.sha256 ?? "(not known yet)"])
        }
        printTable(rows)
    }

    private static func validationText(_ r: ValidationReport) -> String {
        if let problem = r.problem { return "FAILED: \(problem)" }
        if r.reusedCache { return "ok (files unchanged since the last check; not re-hashed)" }
        return "ok (\(byteText(r.bytesHashed)) hashed)"
    }
}
