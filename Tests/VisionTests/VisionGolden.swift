import Foundation
import Imaging
import ModelStore
import TestSupport

/// The records of golden/vision/features.jsonl (beside the repository) and their images.
enum VisionGolden {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/golden/vision")

    struct Record: Sendable {
        let file: String
        let format: String
        let resizedSize: [Int]
        let resizedSHA256: String
        let cropSHA256: String
        let inputSHA256: String
        /// L2-normalized feature.
        let feature: [Float]
        let featureNorm: Float
        let top5: [(id: Int, logit: Float)]
    }

    /// Every record; a missing or empty file throws.
    static func records() throws -> [Record] {
        let url = root.appendingPathComponent("features.jsonl")
        let text = try String(contentsOf: url, encoding: .utf8)
        let records = try text.split(separator: "\n").map { line in
            guard let r = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let file = r["file"] as? String, let format = r["format"] as? String,
                  let resized = r["resized_size"] as? [Int], let top5 = r["top5"] as? [[String: Any]],
                  let feature = r["feature"] as? [NSNumber], let norm = r["feature_norm"] as? NSNumber else {
                throw CocoaError(.coderReadCorrupt)
            }
            return Record(file: file, format: format, resizedSize: resized,
                          resizedSHA256: r["resized_rgb_sha256"] as? String ?? "", cropSHA256: r["crop_rgb_sha256"] as? String ?? "",
                          inputSHA256: r["input_f32_sha256"] as? String ?? "", feature: feature.map(\.floatValue),
                          featureNorm: norm.floatValue,
                          top5: top5.map { (($0["id"] as? Int) ?? -1, ($0["logit"] as? NSNumber)?.floatValue ?? .nan) })
        }
        guard !records.isEmpty else { throw GoldenFile.ReadError.noRecords(path: url.path) }
        return records
    }

    static func sha256(_ bytes: [UInt8]) -> String { SHA256.hex(of: bytes) }

    /// Little-endian float32 bytes, the layout `input_f32_sha256` hashes.
    static func bytes(_ floats: [Float]) -> [UInt8] {
        floats.flatMap { f in withUnsafeBytes(of: f.bitPattern.littleEndian) { Array($0) } }
    }
}
