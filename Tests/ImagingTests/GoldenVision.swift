import Foundation

/// The vision golden set in `../shared/golden/vision` (beside the repository).
enum GoldenVision {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/golden/vision")

    static func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }

    /// One dictionary per line of `features.jsonl`.
    static func records() throws -> [[String: Any]] {
        let text = try String(contentsOf: root.appendingPathComponent("features.jsonl"), encoding: .utf8)
        return try text.split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] ?? [:]
        }
    }
}
