import Kernels
import Tensor

/// How an encoder's linear layers multiply: `int16` quantizes F32/F16 weights once at load
/// (one scale per output row) and each batch's activations per token, and sums exactly in 32-bit
/// integers (`Int16Linear`), about twice the f32 kernel's speed at cosine ≥ 0.9999 to the f32
/// result on the golden sets; `float32` keeps the weights as stored and multiplies in f32.
package enum EncoderPrecision: String, Sendable, Equatable, CaseIterable {
    case float32
    case int16
}

/// One linear layer of an encoder: the weight as stored ([in, out], ggml order) and, for the
/// int16 precision, its packed integer copy. Once packed, the stored weight is not read again,
/// so its pages in a mapped file are given back (`evictedBytes`).
package struct EncoderLinear: Sendable {
    package let weight: TensorView
    package let packed: Int16Linear?
    /// Bytes of the mapped file this layer released after packing.
    package let evictedBytes: Int

    package init(_ weight: TensorView, precision: EncoderPrecision) {
        self.weight = weight
        self.packed = precision == .int16 ? Int16Linear(weight: weight) : nil
        self.evictedBytes = packed == nil ? 0 : weight.evictPages()
    }
}
