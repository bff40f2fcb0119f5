import Formats

/// Decoder architectures the engine implements, parsed once from `general.architecture`.
package enum Architecture: String, Sendable, CaseIterable {
    /// Llama-family decoders (SmolLM2, TinyLlama, Llama 2/3 layouts).
    case llama
    /// Gemma 3: interleaved sliding-window and global attention, QK-norm, GeGLU.
    case gemma3

    /// Reads and validates the architecture of `file`.
    package init(file: GGUFFile) throws(ModelError) {
        guard let name = file.string("general.architecture") else { throw .missingArchitecture }
        guard let arch = Architecture(rawValue: name) else { throw .unsupportedArchitecture(name) }
        self = arch
    }
}
