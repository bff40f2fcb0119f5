import Foundation
import Imaging
import ModelStore
import TestSupport

/// golden/vision2/faces (beside the repository): MediaPipe's face results per image, the
/// recipe's value maps and anchors, and the raw detector tensors of two images.
enum FacesGolden {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/golden/vision2")

    struct Detection {
        let score: Float
        let xmin: Float, ymin: Float, width: Float, height: Float
        /// 6 × (x, y), normalized to the image.
        let keypoints: [[Float]]
    }

    struct Record {
        let file: String
        let size: [Int]
        let detections: [Detection]
        let inputSHA256: String
        let maxScoreLogit: Float?
        let raw: [String: Any]
    }

    static func records() throws -> [Record] {
        let url = root.appendingPathComponent("faces/faces.jsonl")
        let text = try String(contentsOf: url, encoding: .utf8)
        let records = try text.split(separator: "\n").map { line -> Record in
            guard let r = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let file = r["file"] as? String, let size = r["size"] as? [Int],
                  let detections = r["detections"] as? [[String: Any]], let det = r["det_tensor"] as? [String: Any] else {
                throw CocoaError(.coderReadCorrupt)
            }
            return Record(
                file: file, size: size,
                detections: try detections.map { d in
                    guard let s = d["score"] as? NSNumber, let x = d["xmin"] as? NSNumber, let y = d["ymin"] as? NSNumber,
                          let w = d["width"] as? NSNumber, let h = d["height"] as? NSNumber,
                          let k = d["keypoints"] as? [[NSNumber]] else { throw CocoaError(.coderReadCorrupt) }
                    return Detection(score: s.floatValue, xmin: x.floatValue, ymin: y.floatValue, width: w.floatValue,
                                     height: h.floatValue, keypoints: k.map { $0.map(\.floatValue) })
                },
                inputSHA256: det["input_f32_sha256"] as? String ?? "",
                maxScoreLogit: (det["max_raw_score_logit"] as? NSNumber)?.floatValue, raw: r)
        }
        guard !records.isEmpty else { throw GoldenFile.ReadError.noRecords(path: url.path) }
        return records
    }

    /// `faces/recipe.json`.
    static func recipe() throws -> [String: Any] {
        let data = try Data(contentsOf: root.appendingPathComponent("faces/recipe.json"))
        guard let r = try JSONSerialization.jsonObject(with: data) as? [String: Any] else { throw CocoaError(.coderReadCorrupt) }
        return r
    }

    /// The 256 floats a uint8 channel value becomes (`lut_minus1_1` or `lut_zero_1`).
    static func lut(_ name: String) throws -> [Float] {
        guard let values = try recipe()[name] as? [NSNumber], values.count == 256 else { throw CocoaError(.coderReadCorrupt) }
        return values.map(\.floatValue)
    }

    static func decode(_ relative: String) throws -> RGBImage {
        try ImageDecoder().decode(fileAt: root.appendingPathComponent(relative).path).image
    }

    /// A NumPy 1.0 `<f4` C-order array: its shape and values.
    static func npy(_ relative: String) throws -> (shape: [Int], values: [Float]) {
        let bytes = [UInt8](try Data(contentsOf: root.appendingPathComponent(relative)))
        guard bytes.count > 10, bytes[0] == 0x93, Array(bytes[1..<6]) == Array("NUMPY".utf8), bytes[6] == 1 else {
            throw CocoaError(.coderReadCorrupt)
        }
        let headerLength = Int(bytes[8]) | Int(bytes[9]) << 8
        let header = String(decoding: bytes[10..<(10 + headerLength)], as: UTF8.self)
        guard header.contains("'descr': '<f4'"), header.contains("'fortran_order': False"),
              let open = header.range(of: "'shape': ("), let close = header[open.upperBound...].firstIndex(of: ")") else {
            throw CocoaError(.coderReadCorrupt)
        }
        let shape = header[open.upperBound..<close].split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        let start = 10 + headerLength, count = shape.reduce(1, *)
        guard bytes.count == start + 4 * count else { throw CocoaError(.coderReadCorrupt) }
        let values = (0..<count).map { i in
            Float(bitPattern: UInt32(bytes[start + 4 * i]) | UInt32(bytes[start + 4 * i + 1]) << 8
                  | UInt32(bytes[start + 4 * i + 2]) << 16 | UInt32(bytes[start + 4 * i + 3]) << 24)
        }
        return (shape, values)
    }

    static func sha256(_ floats: [Float]) -> String {
        SHA256.hex(of: floats.flatMap { f in withUnsafeBytes(of: f.bitPattern.littleEndian) { Array($0) } })
    }
}
