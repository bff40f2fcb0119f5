import Formats

/// Decoder architectures the engine implements, parsed once from `general.architecture`.
package enum Architecture: String, Sendable, CaseIterable {
    /// Llama-family decoders (SmolLM2, TinyLlama, Llama 2/3 layouts).
    case llama
    /// Gemma 3: interleaved sliding-window and global attention, QK-norm, GeGLU.
    case gemma3
    /// Qwen 2 / 2.5: the llama block with biases on the query, key and value projections and
    /// half-split ("neox") RoPE.
    case qwen2

    /// Reads and validates the architecture of `file`.
    package init(file: GGUFFile) throws(ModelError) {
        guard let name = file.string("general.architecture") else { throw .missingArchitecture }
        guard let arch = Architecture(rawValue: name) else { throw .unsupportedArchitecture(name) }
        self = arch
    }
}
