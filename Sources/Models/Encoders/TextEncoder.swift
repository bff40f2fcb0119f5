import Kernels
import Tensor

/// A loaded BERT-family text encoder: immutable weights, shareable across threads. Per-call
/// buffers live in an `EncoderState`.
package protocol TextEncoder: Sendable {
    var config: EncoderConfig { get }
    /// How its linear layers multiply; part of the identity of the vectors it makes.
    var precision: EncoderPrecision { get }
    /// Bytes of its weights file it no longer keeps resident (weights repacked at load).
    var evictedBytes: Int { get }

    /// Runs every sequence of `batch` through the encoder and writes each one's mean-pooled final
    /// hidden state (not normalized) to `out`, (batch.count, embeddingLength).
    ///
    /// Preconditions (checked by the embedding front door, which owns the typed errors): every
    /// sequence is non-empty, at most `config.maxPositions` long, and holds valid vocabulary ids.
    func meanPooled(_ batch: EncoderBatch, state: EncoderState, out: UnsafeMutablePointer<Float>)
}

extension TextEncoder {
    package var evictedBytes: Int { 0 }
}

/// Sequences packed back to back: the linear layers run over all tokens at once, and attention
/// runs within each sequence only. That block-diagonal mask is the attention mask of a padded
/// batch with the padding removed, so a sequence's embedding does not depend on its neighbours
/// and no work is spent on padding.
package struct EncoderBatch: Sendable, Equatable {
    /// All tokens, sequence after sequence.
    package private(set) var tokens: [Int32] = []
    /// Where each sequence sits in `tokens`.
    package private(set) var sequences: [Range<Int>] = []

    package init() {}

    package init(_ sequences: [[Int32]]) {
        for s in sequences { append(s) }
    }

    package mutating func append<C: Collection<Int32>>(_ sequence: C) {
        let start = tokens.count
        tokens.append(contentsOf: sequence)
        sequences.append(start..<tokens.count)
    }

    package var count: Int { sequences.count }
    package var tokenCount: Int { tokens.count }
    package var longest: Int { sequences.map(\.count).max() ?? 0 }
}

extension TensorView {
    /// The whole tensor decoded to floats (F32, F16, BF16 or any quantized type); for the small
    /// bias and norm vectors, copied once at load.
    package func floatArray() -> [Float] {
        [Float](unsafeUninitializedCapacity: elementCount) { buffer, initialized in
            Dequantize.row(type, data, buffer.baseAddress!, count: elementCount)
            initialized = elementCount
        }
    }
}
