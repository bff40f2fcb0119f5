import Formats

/// Decoder architectures the engine implements, parsed once from `general.architecture`.
package enum Architecture: String, Sendable, CaseIterable {
    /// Llama-family decoders (SmolLM2, TinyLlama, Llama 2/3 layouts), with Llama 3.x RoPE
    /// frequency factors and linear RoPE scaling.
    case llama
    /// Gemma 2: sandwich norms, attention and final logit soft-capping, every other layer
    /// sliding-window, GeGLU.
    case gemma2
    /// Gemma 3: interleaved sliding-window and global attention, QK-norm, GeGLU.
    case gemma3
    /// Qwen 2 / 2.5: the llama block with biases on the query, key and value projections and
    /// half-split ("neox") RoPE.
    case qwen2
    /// Qwen 3: per-head RMSNorm of queries and keys (QK-norm), no projection biases, neox RoPE.
    case qwen3
    /// Phi-3 / Phi-3.5 / Phi-4-mini: fused QKV and gate/up projections, neox RoPE.
    case phi3

    /// Reads and validates the architecture of `file`.
    package init(file: GGUFFile) throws(ModelError) {
        guard let name = file.string("general.architecture") else { throw .missingArchitecture }
        guard let arch = Architecture(rawValue: name) else { throw .unsupportedArchitecture(name) }
        self = arch
    }

    /// How this architecture pairs the dimensions of a head for RoPE (llama.cpp's rope type).
    package var ropeStyle: RoPEStyle {
        self == .llama ? .interleaved : .halves
    }
}
