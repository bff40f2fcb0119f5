import Foundation
import Runtime

/// What a model's weights file says of itself, read from its header without loading it: the
/// facts model listings show (Ollama's `/api/show`, `ondevice models info`).
public struct ModelWeights: Sendable, Equatable {
    /// The weights file (`ModelInfo.weightsFile`).
    public var file: ModelInfo.File
    /// When the file last changed.
    public var modified: Date?
    /// "gguf" or "safetensors".
    public var format: String
    /// `general.architecture` (GGUF) or `model_type` (the config beside safetensors): "llama", "bert".
    public var architecture: String?
    /// The stated parameter count, else the elements of every tensor.
    public var parameterCount: Int
    /// The file type's name as llama.cpp writes it ("Q4_K_M"), else the type holding most bytes.
    public var quantization: String?
    public var contextLength: Int?
    public var embeddingLength: Int?
    public var layerCount: Int?
    public var headCount: Int?
    public var vocabularySize: Int?
    /// The Jinja chat template the model ships (`tokenizer.chat_template`).
    public var chatTemplate: String?
}

extension ModelInfo {
    /// The file holding the weights: the largest `.gguf` or `.safetensors` file; nil for models in
    /// other formats (CTranslate2, ONNX, PyTorch).
    public var weightsFile: File? {
        files.filter { $0.name.hasSuffix(".gguf") || $0.name.hasSuffix(".safetensors") }.max { ($0.bytes ?? 0) < ($1.bytes ?? 0) }
    }
}

extension ModelLibrary {
    /// Reads installed model `id`'s weights header; nil when it has no `.gguf` or `.safetensors`
    /// weights. A model not installed, or a header that cannot be read, throws.
    public func weights(of id: String) async throws -> ModelWeights? {
        let model = try await info(id)
        guard model.state == .installed else { throw OnDeviceError(store: .notInstalled(id: id)) }
        guard let file = model.weightsFile else { return nil }
        let header: ModelHeader
        do { header = try ModelHeader.read(path: file.path) } catch {
            var failure = OnDeviceError(code: .modelUnavailable, message: "\(id): \(error.description)", cause: error)
            failure.model = id
            failure.path = file.path
            throw failure
        }
        let modified = (try? FileManager.default.attributesOfItem(atPath: file.path))?[.modificationDate] as? Date
        return ModelWeights(file: file, modified: modified, format: header.format, architecture: header.architecture,
                            parameterCount: header.parameterCount, quantization: header.quantization,
                            contextLength: header.contextLength, embeddingLength: header.embeddingLength,
                            layerCount: header.layerCount, headCount: header.headCount,
                            vocabularySize: header.vocabularySize, chatTemplate: header.chatTemplate)
    }
}
