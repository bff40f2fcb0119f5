/// What a `WhisperState` allocates, so the runtime can estimate a Whisper model before loading
/// it and account exactly for the states it holds. Mirrors the buffers `init` allocates.
extension WhisperState {
    /// Bytes of the decoder caches: self-attention keys and values for `maxBeams` beams, and
    /// the cross-attention keys/values in their three layouts.
    package static func cacheByteCount(config c: WhisperConfig, maxBeams: Int) -> Int {
        let d = c.width, t = c.audioContext
        let selfKV = 2 * c.decoderLayers * maxBeams * c.textContext * d
        let cross = c.decoderLayers * t * 2 * d + 2 * c.decoderLayers * d * t
        return (selfKV + cross) * MemoryLayout<Float>.size
    }

    /// Encoder attention workers a state made for `threads` threads holds scores for.
    static func encoderScoreWorkers(config c: WhisperConfig, threads: Int) -> Int {
        max(1, min(threads, c.encoderHeads))
    }

    /// Bytes of every buffer a state for `threads` threads allocates (caches included).
    package static func byteCount(config c: WhisperConfig, maxBeams: Int, threads: Int) -> Int {
        let d = c.width, t = c.audioContext, ctx = c.textContext
        let encoder = 3 * t * d + max(t * 3 * d, 2 * t * d) + max(2 * t * c.melCount * 3, t * 3 * d, t * c.feedForwardWidth)
            + t * d  // encoderOutput
        let decoder = maxBeams * ctx * d + 3 * ctx * d + ctx * 3 * d + ctx * c.feedForwardWidth
        let scoreRows = max(c.encoderHeads, c.decoderHeads) * max(maxBeams, 8)
        let floats = encoder + decoder + scoreRows * max(t, ctx) + maxBeams * c.vocabularySize
            + encoderScoreWorkers(config: c, threads: threads) * t * t
        return floats * MemoryLayout<Float>.size + cacheByteCount(config: c, maxBeams: maxBeams)
    }
}
