import Kernels

/// The mutable half of Whisper: encoder scratch, the encoder output and its cross-attention
/// keys/values, the decoder's per-beam self-attention cache and logits. One per
/// transcription; buffers are allocated once, so decoding allocates nothing per token.
package final class WhisperState {
    package let config: WhisperConfig
    package let maxBeams: Int
    package let matmul: MatMul
    /// Decoder positions cached, the same for every live beam.
    package internal(set) var length = 0
    /// Live beams (rows of the decoder batch).
    package internal(set) var beamCount = 1
    /// Encoder positions of the last window: audioContext for a 30 s window, fewer for a
    /// shortened one. The cross-attention buffers hold this many rows.
    package internal(set) var encodedPositions: Int

    // Encoder, (positions = audioContext = T/2, frames = T):
    let encoderX: UnsafeMutablePointer<Float>      // (T/2, d) residual stream
    let encoderH: UnsafeMutablePointer<Float>      // (T/2, d) normed
    let encoderQKV: UnsafeMutablePointer<Float>    // (T/2, 3d); also conv1's output (T, d)
    let encoderAttn: UnsafeMutablePointer<Float>   // (T/2, d)
    let encoderWide: UnsafeMutablePointer<Float>   // max((T, mels·3), (T/2, 3d), (T/2, 4d))
    /// The last window's encoder output. (audioContext, d)
    package let encoderOutput: UnsafeMutablePointer<Float>
    // Decoder:
    let crossKV: UnsafeMutablePointer<Float>       // (layers, audioContext, 2d): keys | values per row
    let crossKeysT: UnsafeMutablePointer<Float>    // (layers, d, audioContext): keys transposed, head-major
    let crossValues: UnsafeMutablePointer<Float>   // (layers, heads, audioContext, headDim): values by head
    let selfKeys: UnsafeMutablePointer<Float>      // (layers, maxBeams, textContext, d)
    let selfValues: UnsafeMutablePointer<Float>    // (layers, maxBeams, textContext, d)
    let reorderScratch: UnsafeMutablePointer<Float> // (maxBeams, textContext, d)
    let x: UnsafeMutablePointer<Float>             // (textContext, d)
    let h: UnsafeMutablePointer<Float>             // (textContext, d)
    let qkv: UnsafeMutablePointer<Float>           // (textContext, 3d)
    let attn: UnsafeMutablePointer<Float>          // (textContext, d)
    let ffn: UnsafeMutablePointer<Float>           // (textContext, 4d)
    /// Attention scores, one row per parallel task. (tasks, audioContext)
    let scores: UnsafeMutablePointer<Float>
    let scoreRows: Int
    /// Logits of the last step, one row per beam. (maxBeams, vocab)
    package let logits: UnsafeMutablePointer<Float>
    /// The encoder's self-attention scores, one (audioContext, audioContext) matrix per worker
    /// (9 MB each for a 30 s window). Allocated with the state so an op's working memory is the
    /// state the runtime accounts for, not a transient allocation on top of it.
    private(set) var encoderScores: UnsafeMutablePointer<Float>
    /// Workers `encoderScores` has room for: one per thread, at most one per head. Grows when
    /// the state is given more threads.
    private(set) var encoderScoreWorkers: Int

    package init(config c: WhisperConfig, maxBeams: Int = 5, threads: Int) {
        precondition(maxBeams >= 1)
        self.config = c
        self.maxBeams = maxBeams
        self.matmul = MatMul(threads: threads)
        self.encodedPositions = c.audioContext
        let d = c.width, t = c.audioContext, ctx = c.textContext
        func alloc(_ n: Int) -> UnsafeMutablePointer<Float> {
            let p = UnsafeMutablePointer<Float>.allocate(capacity: n)
            p.initialize(repeating: 0, count: n)
            return p
        }
        encoderX = alloc(t * d)
        encoderH = alloc(t * d)
        encoderQKV = alloc(max(t * 3 * d, 2 * t * d))
        encoderAttn = alloc(t * d)
        encoderWide = alloc(max(2 * t * c.melCount * 3, t * 3 * d, t * c.feedForwardWidth))
        encoderOutput = alloc(t * d)
        crossKV = alloc(c.decoderLayers * t * 2 * d)
        crossKeysT = alloc(c.decoderLayers * d * t)
        crossValues = alloc(c.decoderLayers * d * t)
        selfKeys = alloc(c.decoderLayers * maxBeams * ctx * d)
        selfValues = alloc(c.decoderLayers * maxBeams * ctx * d)
        reorderScratch = alloc(maxBeams * ctx * d)
        x = alloc(ctx * d)
        h = alloc(ctx * d)
        qkv = alloc(ctx * 3 * d)
        attn = alloc(ctx * d)
        ffn = alloc(ctx * c.feedForwardWidth)
        scoreRows = max(c.encoderHeads, c.decoderHeads) * max(maxBeams, 8)
        scores = alloc(scoreRows * max(t, ctx))
        logits = alloc(maxBeams * c.vocabularySize)
        encoderScoreWorkers = Self.encoderScoreWorkers(config: c, threads: threads)
        encoderScores = alloc(encoderScoreWorkers * t * t)
    }

    deinit {
        for p in [encoderX, encoderH, encoderQKV, encoderAttn, encoderWide, encoderOutput, crossKV, crossKeysT, crossValues, selfKeys, selfValues,
                  reorderScratch, x, h, qkv, attn, ffn, scores, logits, encoderScores] {
            p.deallocate()
        }
    }

    /// Threads used by the kernels.
    package var threads: Int {
        get { matmul.threads }
        set {
            matmul.threads = newValue
            let workers = Self.encoderScoreWorkers(config: config, threads: newValue)
            guard workers > encoderScoreWorkers else { return }
            let count = workers * config.audioContext * config.audioContext
            let grown = UnsafeMutablePointer<Float>.allocate(capacity: count)
            grown.initialize(repeating: 0, count: count)
            encoderScores.deallocate()
            encoderScores = grown
            encoderScoreWorkers = workers
        }
    }

    /// Bytes this state holds now (`byteCount` for the threads its encoder scores are sized for).
    package var allocatedBytes: Int {
        Self.byteCount(config: config, maxBeams: maxBeams, threads: encoderScoreWorkers)
    }

    /// Forgets the decoder cache (a new window or a new decoding pass over the same window).
    package func resetDecoder() {
        length = 0
        beamCount = 1
    }

    /// Self-attention keys of `layer`, `beam`, position 0. (textContext, d)
    @inline(__always) func keys(layer: Int, beam: Int) -> UnsafeMutablePointer<Float> {
        selfKeys + ((layer * maxBeams + beam) * config.textContext) * config.width
    }

    @inline(__always) func values(layer: Int, beam: Int) -> UnsafeMutablePointer<Float> {
        selfValues + ((layer * maxBeams + beam) * config.textContext) * config.width
    }

    /// Logits of decoder row `beam`. (vocab)
    package func logits(beam: Int) -> UnsafeMutablePointer<Float> { logits + beam * config.vocabularySize }

    /// Makes beam i a copy of old beam `sources[i]` (beam search reordering); `sources.count`
    /// becomes the number of live beams.
    package func reorderBeams(_ sources: [Int]) {
        precondition(!sources.isEmpty && sources.count <= maxBeams && sources.allSatisfy { $0 >= 0 && $0 < beamCount })
        let rowFloats = length * config.width
        if rowFloats > 0 && sources != Array(0..<sources.count) {
            for layer in 0..<config.decoderLayers {
                for cache in [selfKeys, selfValues] {
                    let base = cache + layer * maxBeams * config.textContext * config.width
                    let stride = config.textContext * config.width
                    for (i, s) in sources.enumerated() { (reorderScratch + i * stride).update(from: base + s * stride, count: rowFloats) }
                    for i in sources.indices { (base + i * stride).update(from: reorderScratch + i * stride, count: rowFloats) }
                }
            }
        }
        beamCount = sources.count
    }
}
