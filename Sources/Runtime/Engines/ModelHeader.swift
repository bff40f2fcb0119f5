import Formats
import Foundation

/// What a model file's header says about the model, read without loading it: the facts a model
/// listing shows (Ollama's `/api/tags` and `/api/show`), for GGUF files (metadata and tensor
/// table) and safetensors files (tensor table, plus `config.json` beside it when there is one).
package struct ModelHeader: Sendable, Equatable {
    /// "gguf" or "safetensors".
    package var format: String
    /// `general.architecture` (GGUF) or `model_type` (config.json), e.g. "llama", "bert".
    package var architecture: String?
    /// `general.parameter_count` when stated, else the elements of every tensor.
    package var parameterCount: Int
    /// The file type's name as llama.cpp writes it ("Q4_K_M"), else the type holding most of
    /// the weight bytes ("F32").
    package var quantization: String?
    package var contextLength: Int?
    package var embeddingLength: Int?
    package var layerCount: Int?
    package var headCount: Int?
    package var vocabularySize: Int?
    /// The Jinja chat template the model ships (`tokenizer.chat_template`).
    package var chatTemplate: String?

    /// Reads the header of the weights file at `path` (a `.gguf` or `.safetensors` file).
    package static func read(path: String) throws(RuntimeError) -> ModelHeader {
        do {
            if path.hasSuffix(".gguf") { return try gguf(GGUFFile.open(path: path)) }
            if path.hasSuffix(".safetensors") { return try safetensors(SafetensorsFile.open(path: path), path: path) }
        } catch {
            throw .load(modelId: path, reason: "cannot read the header: \(error)")
        }
        throw .load(modelId: path, reason: "no header reader for this file type")
    }

    private static func gguf(_ file: GGUFFile) -> ModelHeader {
        let arch = file.architecture
        func key(_ name: String) -> Int? { arch.flatMap { file.int("\($0).\(name)") } }
        let counted = file.tensorInfos.reduce(0) { $0 + $1.elementCount }
        let dominant = Dictionary(grouping: file.tensorInfos.filter { $0.shape.count >= 2 }, by: \.type)
            .max { $0.value.reduce(0) { $0 + $1.byteCount } < $1.value.reduce(0) { $0 + $1.byteCount } }?.key
        return ModelHeader(format: "gguf", architecture: arch, parameterCount: file.int("general.parameter_count") ?? counted,
                           quantization: file.int("general.file_type").flatMap { fileTypeNames[$0] } ?? dominant.map { "\($0)".uppercased() },
                           contextLength: key("context_length"), embeddingLength: key("embedding_length"),
                           layerCount: key("block_count"), headCount: key("attention.head_count"),
                           vocabularySize: file.stringArray("tokenizer.ggml.tokens")?.count,
                           chatTemplate: file.string("tokenizer.chat_template"))
    }

    private static func safetensors(_ file: SafetensorsFile, path: String) -> ModelHeader {
        let infos = Array(file.tensorInfos.values)
        let dominant = Dictionary(grouping: infos, by: \.type)
            .max { $0.value.reduce(0) { $0 + $1.byteCount } < $1.value.reduce(0) { $0 + $1.byteCount } }?.key
        // The Hugging Face config beside the weights names the architecture and its sizes.
        let configPath = (path as NSString).deletingLastPathComponent + "/config.json"
        let config = (try? Data(contentsOf: URL(fileURLWithPath: configPath)))
            .flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] } ?? [:]
        return ModelHeader(format: "safetensors", architecture: config["model_type"] as? String,
                           parameterCount: infos.reduce(0) { $0 + $1.shape.reduce(1, *) },
                           quantization: dominant.map { "\($0)".uppercased() },
                           contextLength: config["max_position_embeddings"] as? Int, embeddingLength: config["hidden_size"] as? Int,
                           layerCount: config["num_hidden_layers"] as? Int, headCount: config["num_attention_heads"] as? Int,
                           vocabularySize: config["vocab_size"] as? Int, chatTemplate: nil)
    }

    /// `general.file_type` values (llama.cpp's `llama_ftype`) and their names.
    static let fileTypeNames: [Int: String] = [
        0: "F32", 1: "F16", 2: "Q4_0", 3: "Q4_1", 7: "Q8_0", 8: "Q5_0", 9: "Q5_1", 10: "Q2_K", 11: "Q3_K_S", 12: "Q3_K_M",
        13: "Q3_K_L", 14: "Q4_K_S", 15: "Q4_K_M", 16: "Q5_K_S", 17: "Q5_K_M", 18: "Q6_K", 32: "BF16",
    ]
}
