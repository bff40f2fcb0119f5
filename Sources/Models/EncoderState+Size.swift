/// What an `EncoderState` allocates for a batch size, so the runtime can estimate an embedding
/// model before loading it. Mirrors the buffers `reserve` allocates.
extension EncoderState {
    /// Bytes of a state reserved for `tokens` packed tokens and sequences up to `longestSequence`.
    package static func byteCount(config c: EncoderConfig, tokens: Int, longestSequence: Int) -> Int {
        // x, tmp, attn (tokens, d); qkv (tokens, 3d); two (tokens, ffn); scores (heads, seq);
        // rotary cos and sin (seq, headDim / 2) each.
        let rows = tokens * (6 * c.embeddingLength + 2 * c.feedForwardLength)
        let tables = longestSequence * (c.headCount + c.headDim)
        return (rows + tables) * MemoryLayout<Float>.size
    }

    /// Bytes this state holds now.
    package var allocatedBytes: Int {
        Self.byteCount(config: config, tokens: tokenCapacity, longestSequence: sequenceCapacity)
    }
}
