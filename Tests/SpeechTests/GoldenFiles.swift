import Foundation
import TestSupport

/// Reads the golden references in `../shared/golden` (beside the repository).
enum GoldenFiles {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/golden")

    static func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }

    /// One dictionary per line of a `.jsonl` file; a missing or empty file throws.
    static func lines(_ relative: String) throws -> [[String: Any]] {
        try GoldenFile.lines(root.appendingPathComponent(relative))
    }

    /// A NumPy v1.0 `<f4` C-order array: its shape and values.
    static func npy(_ relative: String) throws -> (shape: [Int], values: [Float]) {
        let data = try Data(contentsOf: root.appendingPathComponent(relative))
        let bytes = [UInt8](data)
        guard bytes.count > 10, bytes[0] == 0x93, bytes[6] == 1 else { throw NPYError.badHeader }
        let headerLength = Int(bytes[8]) | Int(bytes[9]) << 8
        let header = String(decoding: bytes[10..<(10 + headerLength)], as: UTF8.self)
        guard header.contains("'<f4'"), header.contains("'fortran_order': False"),
              let open = header.firstIndex(of: "("), let close = header.firstIndex(of: ")") else { throw NPYError.badHeader }
        let shape = header[header.index(after: open)..<close].split(separator: ",").compactMap {
            Int($0.trimmingCharacters(in: .whitespaces))
        }
        let start = 10 + headerLength
        let count = shape.reduce(1, *)
        guard bytes.count >= start + 4 * count else { throw NPYError.badHeader }
        let values = (0..<count).map { i in
            Float(bitPattern: UInt32(bytes[start + 4 * i]) | UInt32(bytes[start + 4 * i + 1]) << 8
                | UInt32(bytes[start + 4 * i + 2]) << 16 | UInt32(bytes[start + 4 * i + 3]) << 24)
        }
        return (shape, values)
    }

    enum NPYError: Error { case badHeader }
}

extension Dictionary where Key == String, Value == Any {
    func ints(_ key: String) -> [Int] { (self[key] as? [NSNumber])?.map { $0.intValue } ?? [] }
    func floats(_ key: String) -> [Float] { (self[key] as? [NSNumber])?.map { $0.floatValue } ?? [] }
    func string(_ key: String) -> String { self[key] as? String ?? "" }
    func double(_ key: String) -> Double { (self[key] as? NSNumber)?.doubleValue ?? .nan }
    func int(_ key: String) -> Int { (self[key] as? NSNumber)?.intValue ?? -1 }
    func object(_ key: String) -> [String: Any] { self[key] as? [String: Any] ?? [:] }
    func objects(_ key: String) -> [[String: Any]] { self[key] as? [[String: Any]] ?? [] }
}
