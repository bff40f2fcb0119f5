import Foundation
import Imaging
import TestSupport

/// golden/vision2/ocr (beside the repository): RapidOCR's records, example tensors and LUTs.
enum OCRGolden {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/golden/vision2/ocr")

    static func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }

    /// The model file `name` from the store, or a failure telling how to install it.
    static func model(_ name: String) throws -> String {
        guard let path = TestModels.path(name) else {
            throw GoldenFile.ReadError.noRecords(path: "\(name) not installed: run scripts/fetch-models.py ppocr-v4-det ppocr-v4-cls ppocr-v4-rec")
        }
        return path
    }

    /// One dictionary per line of ocr.jsonl.
    static func records() throws -> [[String: Any]] { try GoldenFile.lines(root.appendingPathComponent("ocr.jsonl")) }

    /// The 256 float32 values a byte becomes in the det input (`det`) or the cls/rec input (`rec_cls`).
    static func lut(_ key: String) throws -> [Float] {
        let data = try Data(contentsOf: root.appendingPathComponent("ocr_luts.json"))
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              let table = object[key] as? [String: Any], let values = table["values"] as? [NSNumber], values.count == 256 else {
            throw GoldenFile.ReadError.noRecords(path: "ocr_luts.json \(key)")
        }
        return values.map(\.floatValue)
    }

    /// A NumPy v1.0 `<f4` C-order array: its shape and values.
    static func npy(_ relative: String) throws -> (shape: [Int], values: [Float]) {
        let bytes = [UInt8](try Data(contentsOf: root.appendingPathComponent(relative)))
        guard bytes.count > 10, bytes[0] == 0x93, bytes[6] == 1 else { throw NPYError.badHeader }
        let headerLength = Int(bytes[8]) | Int(bytes[9]) << 8
        let header = String(decoding: bytes[10..<(10 + headerLength)], as: UTF8.self)
        guard header.contains("'<f4'"), header.contains("'fortran_order': False"),
              let open = header.firstIndex(of: "("), let close = header.firstIndex(of: ")") else { throw NPYError.badHeader }
        let shape = header[header.index(after: open)..<close].split(separator: ",").compactMap {
            Int($0.trimmingCharacters(in: .whitespaces))
        }
        let start = 10 + headerLength, count = shape.reduce(1, *)
        guard bytes.count >= start + 4 * count else { throw NPYError.badHeader }
        let values = (0..<count).map { i in
            Float(bitPattern: UInt32(bytes[start + 4 * i]) | UInt32(bytes[start + 4 * i + 1]) << 8
                | UInt32(bytes[start + 4 * i + 2]) << 16 | UInt32(bytes[start + 4 * i + 3]) << 24)
        }
        return (shape, values)
    }

    enum NPYError: Error { case badHeader }

    /// An RGB image as the det network's NCHW input: channels B, G, R through `lut`.
    static func bgrInput(_ image: RGBImage, lut: [Float]) -> [Float] {
        let plane = image.width * image.height
        var out = [Float](repeating: 0, count: 3 * plane)
        for p in 0..<plane {
            for c in 0..<3 { out[c * plane + p] = lut[Int(image.pixels[p * 3 + 2 - c])] }
        }
        return out
    }
}
