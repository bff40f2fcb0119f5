import Foundation
import Kernels
import Tensor

/// Gemma 3 decoder: embeddings scaled by sqrt(d); sandwich norms (pre and post) around both
/// blocks; per-head RMSNorm of queries and keys (QK-norm) before half-split RoPE; five
/// sliding-window layers (local RoPE base) for every global one; GeGLU feed-forward with the
/// tanh GELU; output head tied to the embeddings. GGUF norm weights already include Gemma's
/// `1 + w` offset (the converter adds it), so they apply as plain RMSNorm weights.
/// Reference: llama.cpp `src/models/gemma3.cpp` graph (facts only).
package struct Gemma3Model: DecoderModel {
    package let config: DecoderConfig
    package let weights: DecoderWeights

    package func forward(_ tokens: UnsafeBufferPointer<Int32>, state s: DecoderState, allLogits: UnsafeMutablePointer<Float>?) {
        let c = config, n = tokens.count, d = c.embeddingLength, start = s.count
        s.embed(tokens, table: weights.tokenEmbedding, scale: Float(d).squareRoot())
        for (l, w) in weights.layers.enumerated() {
            let sliding = c.isSliding(layer: l)
            s.rmsNorm(s.x, w.attentionNorm, s.xb, rows: n, width: d)
            s.linear(.query, layer: l, w, s.xb, s.q, n: n)
            s.linear(.key, layer: l, w, s.xb, s.k, n: n)
            s.linear(.value, layer: l, w, s.xb, s.v, n: n)
            if let qn = w.queryNorm, let kn = w.keyNorm {
                s.rmsNorm(s.q, qn, s.q, rows: n * c.headCount, width: c.headDim)
                s.rmsNorm(s.k, kn, s.k, rows: n * c.kvHeadCount, width: c.headDim)
            }
            let base = sliding ? c.ropeBaseSliding : c.ropeBase
            for t in 0..<n { s.rope(row: t, position: start + t, base: base, style: .halves,
                                         frequencyScale: c.ropeFrequencyScale, factors: weights.ropeFrequencies) }
            s.cacheKeysValues(layer: l, start: start, n: n)
            s.attend(layer: l, start: start, n: n, window: sliding ? c.slidingWindow : nil)
            s.linear(.output, layer: l, w, s.attnOut, s.proj, n: n)
            if let post = w.postAttentionNorm { s.rmsNorm(s.proj, post, s.proj, rows: n, width: d) }
            s.addInPlace(s.x, s.proj, count: n * d)

            s.rmsNorm(s.x, w.ffnNorm, s.xb, rows: n, width: d)
            s.linear(.gate, layer: l, w, s.xb, s.gate, n: n)
            s.linear(.up, layer: l, w, s.xb, s.up, n: n)
            s.gatedActivation(.gelu, count: n * c.feedForwardLength)
            s.linear(.down, layer: l, w, s.gate, s.proj, n: n)
            if let post = w.postFFNNorm { s.rmsNorm(s.proj, post, s.proj, rows: n, width: d) }
            s.addInPlace(s.x, s.proj, count: n * d)
        }
        s.project(weights: weights, n: n, allLogits: allLogits)
        s.count = start + n
    }
}
