import Foundation

/// Python's `jsonschema` as the second opinion on generated documents:
/// `scripts/check-json-schema.py` over JSON Lines records `{"name", "schema", "output"}`.
package enum JSONSchemaChecker {
    /// The repository this file is in.
    package static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Writes `records` (one JSON object each) to a temporary file and checks them; returns the
    /// script's exit status and output. Non-zero when a document is refused or when python3,
    /// jsonschema or one of its format checkers is missing. A missing python3 throws.
    package static func check(records: [String], label: String) throws -> (status: Int32, output: String) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("ondevice-\(label)-\(getpid()).jsonl")
        try (records.joined(separator: "\n") + "\n").write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        return try ExternalTool.run("python3", [repository.appendingPathComponent("scripts/check-json-schema.py").path, file.path])
    }
}
