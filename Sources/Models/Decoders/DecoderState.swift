#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Kernels
import Tensor

/// The mutable half of a decoder: KV cache, scratch buffers and compute context for one
/// sequence. A loaded model is immutable and shared; each session owns one state.
///
/// Buffers are allocated once for `contextLength` tokens and batches of up to `maxBatch`
/// tokens, so decoding allocates nothing per token.
package final class DecoderState {
    package let config: DecoderConfig
    package let contextLength: Int
    package let maxBatch: Int
    package let matmul: MatMul
    /// Number of positions whose keys and values are cached.
    package internal(set) var count = 0

    // (layers, contextLength, kvDim) each
    let keyCache: UnsafeMutablePointer<Float>
    let valueCache: UnsafeMutablePointer<Float>
    // (maxBatch, d)
    let x: UnsafeMutablePointer<Float>
    let xb: UnsafeMutablePointer<Float>
    let proj: UnsafeMutablePointer<Float>
    // (maxBatch, queryDim)
    let q: UnsafeMutablePointer<Float>
    let attnOut: UnsafeMutablePointer<Float>
    // (maxBatch, kvDim)
    let k: UnsafeMutablePointer<Float>
    let v: UnsafeMutablePointer<Float>
    // (maxBatch, ffn)
    let gate: UnsafeMutablePointer<Float>
    let up: UnsafeMutablePointer<Float>
    // (headCount, contextLength): attention scores, one row per head so heads run in parallel
    let scores: UnsafeMutablePointer<Float>
    // (headDim / 2) each: RoPE cos/sin of the current position
    let ropeCos: UnsafeMutablePointer<Float>
    let ropeSin: UnsafeMutablePointer<Float>
    /// Logits of the last evaluated position. (vocab)
    package let logits: UnsafeMutablePointer<Float>
    /// LoRA adapters every matrix product of `forward` adds (see `DecoderState+LoRA`). They
    /// belong to the sequence, not the model: the cached keys and values were computed with
    /// them, so whoever changes them must also clear the cache (`Session.setAdapters` does).
    package var adapters: [ScaledAdapter] = []
    /// Buffers for the adapters' low-rank products, allocated on first use.
    var loraScratch: LoRAScratch?
    /// Elements below which a norm or an activation runs on the caller alone (a prompt batch's
    /// are split over the threads). Tests lower it to split small models' batches.
    package var minElementsPerSplit = 32 * 1024
    /// Logits of several sequences' last rows in a batched pass (runs, vocab), grown on first use.
    private var batchLogits: UnsafeMutablePointer<Float>?
    private var batchLogitsCount = 0

    package init(config c: DecoderConfig, contextLength: Int, maxBatch: Int = 512, threads: Int) {
        precondition(contextLength > 0 && maxBatch > 0)
        self.config = c
        self.contextLength = contextLength
        self.maxBatch = maxBatch
        self.matmul = MatMul(threads: threads)
        // Every buffer comes zeroed from `calloc`, which for sizes like these maps fresh pages the
        // kernel zeroes on first touch: a session costs the memory of the cache positions and
        // scratch rows it has used (most sessions never run a 512-row pass), and making one does
        // not write the whole context (a burst of new sessions would otherwise spend tens of
        // milliseconds each before their first token).
        func alloc(_ n: Int) -> UnsafeMutablePointer<Float> {
            guard let raw = calloc(n, MemoryLayout<Float>.stride) else { fatalError("out of memory for a decoder buffer of \(n) floats") }
            return raw.bindMemory(to: Float.self, capacity: n)
        }
        let kvCount = c.layerCount * contextLength * c.kvDim
        keyCache = alloc(kvCount)
        valueCache = alloc(kvCount)
        x = alloc(maxBatch * c.embeddingLength)
        xb = alloc(maxBatch * c.embeddingLength)
        proj = alloc(maxBatch * c.embeddingLength)
        q = alloc(maxBatch * c.queryDim)
        attnOut = alloc(maxBatch * c.queryDim)
        k = alloc(maxBatch * c.kvDim)
        v = alloc(maxBatch * c.kvDim)
        gate = alloc(maxBatch * c.feedForwardLength)
        up = alloc(maxBatch * c.feedForwardLength)
        scores = alloc(c.headCount * contextLength)
        ropeCos = alloc(c.headDim / 2)
        ropeSin = alloc(c.headDim / 2)
        logits = alloc(c.vocabularySize)
    }

    deinit {
        for p in [keyCache, valueCache, x, xb, proj, q, attnOut, k, v, gate, up, scores, ropeCos, ropeSin, logits] {
            free(p)
        }
        batchLogits?.deallocate()
    }

    /// A buffer of at least `count` floats for a batched pass's logits.
    func rowLogits(_ count: Int) -> UnsafeMutablePointer<Float> {
        if let batchLogits, batchLogitsCount >= count { return batchLogits }
        batchLogits?.deallocate()
        let p = UnsafeMutablePointer<Float>.allocate(capacity: count)
        batchLogits = p
        batchLogitsCount = count
        return p
    }

    /// Bytes this state holds (KV cache plus scratch), for residency estimates.
    package static func byteCount(config c: DecoderConfig, contextLength: Int, maxBatch: Int = 512) -> Int {
        let kv = 2 * c.layerCount * contextLength * c.kvDim
        let scratch = maxBatch * (3 * c.embeddingLength + 2 * c.queryDim + 2 * c.kvDim + 2 * c.feedForwardLength)
        return 4 * (kv + scratch + c.headCount * contextLength + c.headDim + c.vocabularySize)
    }

    /// Forgets every cached position after the first `count` (prompt-cache reuse).
    package func truncate(to count: Int) {
        precondition(count >= 0 && count <= self.count)
        self.count = count
    }

    /// Threads used by the kernels.
    package var threads: Int {
        get { matmul.threads }
        set { matmul.threads = newValue }
    }

    /// Keys of `layer` at `position`. (kvDim)
    @inline(__always) func keys(layer: Int, position: Int) -> UnsafeMutablePointer<Float> {
        keyCache + (layer * contextLength + position) * config.kvDim
    }

    /// Values of `layer` at `position`. (kvDim)
    @inline(__always) func values(layer: Int, position: Int) -> UnsafeMutablePointer<Float> {
        valueCache + (layer * contextLength + position) * config.kvDim
    }
}
