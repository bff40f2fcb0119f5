import Foundation

/// Reads the golden references in `../shared/golden` (beside the repository).
enum GoldenFiles {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/golden")

    /// One dictionary per line of a `.jsonl` file.
    static func lines(_ relative: String) throws -> [[String: Any]] {
        let text = try String(contentsOf: root.appendingPathComponent(relative), encoding: .utf8)
        return try text.split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] ?? [:]
        }
    }
}

extension Dictionary where Key == String, Value == Any {
    func ints(_ key: String) -> [Int32] { (self[key] as? [NSNumber])?.map { $0.int32Value } ?? [] }
    func floats(_ key: String) -> [Float] { (self[key] as? [NSNumber])?.map { $0.floatValue } ?? [] }
    func string(_ key: String) -> String { self[key] as? String ?? "" }
}
