import CKernels
import Kernels

/// Scratch buffers and the matmul context for running a `TextEncoder` over packed batches.
/// Not thread-safe: one call at a time; the embedder keeps a pool of them.
///
/// Buffers grow to the largest batch seen and are reused, so a steady stream of batches of
/// similar size allocates nothing.
package final class EncoderState {
    package let config: EncoderConfig
    package let matmul: MatMul
    /// The current linear input, quantized for `Int16Linear` (int16 precision).
    let tokenPanels = Int16TokenPanels()
    /// Tokens the buffers hold.
    package private(set) var tokenCapacity = 0
    /// Longest sequence the per-head score and rotary tables hold.
    package private(set) var sequenceCapacity = 0

    // (tokens, d): the residual stream and a second row buffer
    private(set) var x: UnsafeMutablePointer<Float>
    private(set) var tmp: UnsafeMutablePointer<Float>
    // (tokens, 3d): queries, keys and values (fused, or three (tokens, d) blocks)
    private(set) var qkv: UnsafeMutablePointer<Float>
    // (tokens, d): attention output before its projection
    private(set) var attn: UnsafeMutablePointer<Float>
    // (tokens, ffn) each: feed-forward activations
    private(set) var ffnA: UnsafeMutablePointer<Float>
    private(set) var ffnB: UnsafeMutablePointer<Float>
    // (heads, attentionScratchFloats): attention scratch (transposed keys, scores), one block per
    // head so heads run in parallel
    private(set) var scores: UnsafeMutablePointer<Float>
    // (sequenceCapacity, headDim / 2) each: rotary cos/sin by position
    private(set) var ropeCos: UnsafeMutablePointer<Float>
    private(set) var ropeSin: UnsafeMutablePointer<Float>
    private var ropeBuilt = 0
    /// Floats of one head's attention scratch for sequences up to `sequenceCapacity`.
    private(set) var attentionScratchFloats = 0

    package init(config: EncoderConfig, threads: Int) {
        self.config = config
        self.matmul = MatMul(threads: max(1, threads))
        let empty = UnsafeMutablePointer<Float>.allocate(capacity: 1)
        (x, tmp, qkv, attn, ffnA, ffnB) = (empty, empty, empty, empty, empty, empty)
        (scores, ropeCos, ropeSin) = (empty, empty, empty)
        reserve(tokens: 64, longestSequence: 64)
        empty.deallocate()
    }

    deinit { release() }

    package var threads: Int {
        get { matmul.threads }
        set { matmul.threads = max(1, newValue) }
    }

    /// Makes the buffers hold `tokens` packed tokens with sequences up to `longestSequence`.
    package func reserve(tokens: Int, longestSequence: Int) {
        if tokens > tokenCapacity {
            let c = config, n = max(tokens, tokenCapacity * 3 / 2)
            if tokenCapacity > 0 { for p in [x, tmp, qkv, attn, ffnA, ffnB] { p.deallocate() } }
            x = .allocate(capacity: n * c.embeddingLength)
            tmp = .allocate(capacity: n * c.embeddingLength)
            qkv = .allocate(capacity: n * 3 * c.embeddingLength)
            attn = .allocate(capacity: n * c.embeddingLength)
            ffnA = .allocate(capacity: n * c.feedForwardLength)
            ffnB = .allocate(capacity: n * c.feedForwardLength)
            tokenCapacity = n
        }
        if longestSequence > sequenceCapacity {
            let c = config, n = max(longestSequence, sequenceCapacity * 3 / 2)
            if sequenceCapacity > 0 { for p in [scores, ropeCos, ropeSin] { p.deallocate() } }
            attentionScratchFloats = od_attend_sequence_scratch(Int64(n), Int64(c.headDim))
            scores = .allocate(capacity: c.headCount * attentionScratchFloats)
            ropeCos = .allocate(capacity: n * c.headDim / 2)
            ropeSin = .allocate(capacity: n * c.headDim / 2)
            sequenceCapacity = n
            ropeBuilt = 0
        }
    }

    private func release() {
        guard tokenCapacity > 0 else { return }
        for p in [x, tmp, qkv, attn, ffnA, ffnB, scores, ropeCos, ropeSin] { p.deallocate() }
    }

    /// Fills the rotary tables for positions `0 ..< count` (once per capacity).
    func buildRotaryTables(count: Int) {
        precondition(count <= sequenceCapacity)
        guard count > ropeBuilt else { return }
        let half = config.headDim / 2
        // theta_i = position * base^(-2i / headDim), accumulated in Float as ggml does.
        let step = powf(config.ropeBase, -2 / Float(config.headDim))
        for p in 0..<sequenceCapacity {
            var theta = Float(p)
            for i in 0..<half {
                ropeCos[p * half + i] = cosf(theta)
                ropeSin[p * half + i] = sinf(theta)
                theta *= step
            }
        }
        ropeBuilt = sequenceCapacity
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
