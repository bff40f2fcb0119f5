import CKernels

/// What an `EncoderState` allocates for a batch size, so the runtime can estimate an embedding
/// model before loading it. Mirrors the buffers `reserve` allocates.
extension EncoderState {
    /// Bytes of a state reserved for `tokens` packed tokens and sequences up to `longestSequence`.
    package static func byteCount(config c: EncoderConfig, tokens: Int, longestSequence: Int) -> Int {
        // x, tmp, attn (tokens, d); qkv (tokens, 3d); two (tokens, ffn); per head the attention
        // scratch; rotary cos and sin (seq, headDim / 2) each; the int16 token panels of the
        // widest linear input (tokens rounded up to 6, ffn values) and their scales.
        let rows = tokens * (6 * c.embeddingLength + 2 * c.feedForwardLength)
        let attention = c.headCount * od_attend_sequence_scratch(Int64(longestSequence), Int64(c.headDim))
        let tables = attention + longestSequence * c.headDim
        let panels = (tokens + 5) / 6 * 6 * c.feedForwardLength * 2 + tokens * 4
        return (rows + tables) * MemoryLayout<Float>.size + panels
    }

    /// Bytes this state holds now.
    package var allocatedBytes: Int {
        Self.byteCount(config: config, tokens: tokenCapacity, longestSequence: sequenceCapacity)
    }
}
