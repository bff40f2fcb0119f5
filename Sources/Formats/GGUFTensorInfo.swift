import Tensor

/// Where one tensor lives in a GGUF file, validated against the file's size and alignment.
package struct GGUFTensorInfo: Sendable, Equatable {
    /// Tensor name, e.g. `blk.0.attn_q.weight`.
    package let name: String
    /// Element or block format.
    package let type: GGMLType
    /// Dimensions in ggml order: `shape[0]` is the contiguous (innermost) one.
    package let shape: [Int]
    /// Absolute byte offset of the first byte in the file.
    package let offset: Int
    /// Bytes the tensor occupies (whole rows of whole blocks).
    package let byteCount: Int

    package init(name: String, type: GGMLType, shape: [Int], offset: Int, byteCount: Int) {
        self.name = name
        self.type = type
        self.shape = shape
        self.offset = offset
        self.byteCount = byteCount
    }

    /// Total element count.
    package var elementCount: Int { shape.reduce(1, *) }
}
