/// What a text model is, as `TextModel.info()` reports it.
public struct TextModelInfo: Sendable, Equatable {
    /// The GGUF architecture (`llama`, `qwen2`, `gemma3`, ...).
    public var architecture: String
    /// The file's quantization (`Q4_K_M`, ...).
    public var quantization: String
    /// Bytes of mapped weights.
    public var weightBytes: Int
    /// The model's trained context, and the context its sessions run with here.
    public var contextLength: Int
    public var sessionContextLength: Int
    /// Whether the model's metadata holds a chat template (instruction-tuned models do).
    public var hasChatTemplate: Bool
}
