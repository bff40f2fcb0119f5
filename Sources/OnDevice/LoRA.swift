/// A LoRA adapter to apply to one request, and how strongly.
///
/// Adapters specialise the configured text model without a second copy of it: the base weights
/// stay as they are and each request adds `scale · (alpha / rank) · B·(A·x)` to every adapted
/// matrix product, so requests with different adapters (or none) share one resident model.
/// Several adapters in one request add their deltas.
public struct LoRA: Sendable, Equatable, Codable {
    /// Path of a GGUF LoRA adapter (llama.cpp's format) made for the configured text model.
    public var path: String
    /// 1 applies the adapter as trained, 0 not at all; values in between weaken it.
    public var scale: Float

    public init(path: String, scale: Float = 1) {
        self.path = path
        self.scale = scale
    }
}
