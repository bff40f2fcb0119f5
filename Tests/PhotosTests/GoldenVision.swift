import Foundation
import TestSupport

/// The vision golden set in `../shared/golden/vision` (beside the repository).
enum GoldenVision {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/golden/vision")

    static func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }

    static func json(_ relative: String) throws -> [String: Any] {
        try GoldenFile.object(root.appendingPathComponent(relative))
    }

    /// One dictionary per line of `features.jsonl`; a missing or empty file throws.
    static func records() throws -> [[String: Any]] {
        try GoldenFile.lines(root.appendingPathComponent("features.jsonl"))
    }
}
