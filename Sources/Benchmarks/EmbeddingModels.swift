import Foundation
import ModelStore
import Models
import Retrieval

/// Loading an embedding model outside the runtime, for `bench-embed` (which times the load).
enum EmbeddingModels {
    static let defaultId = "all-minilm-l6-v2"

    /// Loads `argument` directly, outside the runtime (benchmarks that time the load itself).
    static func loadDirectly(_ argument: String, threads: Int?, precision: EncoderPrecision = .int16) async throws -> Embedder {
        if FileManager.default.fileExists(atPath: argument) {
            return try Embedder.load(path: argument, threads: threads, precision: precision)
        }
        let installed = try await BenchModels.installed(argument)
        let weights = installed.entry.files.first { $0.name.hasSuffix(".gguf") || $0.name.hasSuffix(".safetensors") }
        let path: String
        if let weights, weights.name.hasSuffix(".gguf") {
            path = installed.directory + "/" + weights.name
        } else {
            path = installed.directory
        }
        return try Embedder.load(path: path, modelId: installed.id, revision: weights?.sha256, threads: threads, precision: precision)
    }
}
