import Foundation
import Retrieval
import Testing
import TestSupport

/// Golden references (../shared/golden/embeddings, see its README) and the real embedding models,
/// each loaded once per test process.
enum Fixtures {
    static let golden = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/golden/embeddings")

    /// One dictionary per line of a `.jsonl` golden file; a missing or empty file throws.
    static func lines(_ name: String) throws -> [[String: Any]] {
        try GoldenFile.lines(golden.appendingPathComponent(name))
    }

    static func json(_ name: String) throws -> [String: Any] {
        try GoldenFile.object(golden.appendingPathComponent(name))
    }

    static let miniLMMarker = "sentence_bert_config.json"
    static let nomicFile = "nomic-embed-text-v1.5.f16.gguf"

    /// The all-MiniLM-L6-v2 directory (the one holding `sentence_bert_config.json`).
    static func miniLMDirectory() throws -> String {
        let marker = try #require(TestModels.path(miniLMMarker), "all-minilm-l6-v2 not installed: run scripts/setup.sh")
        return (marker as NSString).deletingLastPathComponent
    }

    static func nomicPath() throws -> String {
        try #require(TestModels.path(nomicFile), "nomic-embed-text-v1.5-f16 not installed: run scripts/setup.sh")
    }

    static let miniLM = Result { try Embedder.load(path: try miniLMDirectory(), modelId: "all-minilm-l6-v2", threads: 2) }
    static let nomic = Result { try Embedder.load(path: try nomicPath(), modelId: "nomic-embed-text-v1.5-f16", threads: 2) }
}

extension Dictionary where Key == String, Value == Any {
    func ints(_ key: String) -> [Int32] { (self[key] as? [NSNumber])?.map { $0.int32Value } ?? [] }
    func floats(_ key: String) -> [Float] { (self[key] as? [NSNumber])?.map { $0.floatValue } ?? [] }
    func string(_ key: String) -> String { self[key] as? String ?? "" }
}

func cosine(_ a: [Float], _ b: [Float]) -> Float {
    var dot: Double = 0, na: Double = 0, nb: Double = 0
    for (x, y) in zip(a, b) {
        dot += Double(x) * Double(y)
        na += Double(x) * Double(x)
        nb += Double(y) * Double(y)
    }
    return Float(dot / (na.squareRoot() * nb.squareRoot()))
}
