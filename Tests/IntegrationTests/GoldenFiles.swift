import Foundation
import TestSupport

/// Reads the golden references in `../shared/golden` (beside the repository).
enum GoldenFiles {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/golden")

    /// One dictionary per line of a `.jsonl` file; a missing or empty file throws.
    static func lines(_ relative: String) throws -> [[String: Any]] {
        try GoldenFile.lines(root.appendingPathComponent(relative))
    }
}

extension Dictionary where Key == String, Value == Any {
    func ints(_ key: String) -> [Int32] { (self[key] as? [NSNumber])?.map { $0.int32Value } ?? [] }
    func floats(_ key: String) -> [Float] { (self[key] as? [NSNumber])?.map { $0.floatValue } ?? [] }
    func string(_ key: String) -> String { self[key] as? String ?? "" }
}
