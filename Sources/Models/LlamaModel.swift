import Kernels
import Tensor

/// Llama-family decoder (SmolLM2, Llama 2/3 layouts): pre-norm RMSNorm blocks, grouped-query
/// attention with interleaved RoPE, SwiGLU feed-forward, optional tied output head.
/// Reference: llama.cpp `src/models/llama.cpp` graph (facts only).
package struct LlamaModel: DecoderModel {
    package let config: DecoderConfig
    package let weights: DecoderWeights

    package func forward(_ tokens: UnsafeBufferPointer<Int32>, state s: DecoderState, allLogits: UnsafeMutablePointer<Float>?) {
        let c = config, n = tokens.count, d = c.embeddingLength, start = s.count
        s.embed(tokens, table: weights.tokenEmbedding, scale: 1)
        for (l, w) in weights.layers.enumerated() {
            // Attention block: x += Wo · attn(rope(Wq·h), rope(Wk·h), Wv·h), h = norm(x)
            s.rmsNorm(s.x, w.attentionNorm, s.xb, rows: n, width: d)
            s.linear(.query, layer: l, w, s.xb, s.q, n: n)
            s.linear(.key, layer: l, w, s.xb, s.k, n: n)
            s.linear(.value, layer: l, w, s.xb, s.v, n: n)
            for t in 0..<n { s.rope(row: t, position: start + t, base: c.ropeBase, style: .interleaved,
                                         frequencyScale: c.ropeFrequencyScale, factors: weights.ropeFrequencies) }
            s.cacheKeysValues(layer: l, start: start, n: n)
            s.attend(layer: l, start: start, n: n, window: nil)
            s.linear(.output, layer: l, w, s.attnOut, s.proj, n: n)
            s.addInPlace(s.x, s.proj, count: n * d)
            // Feed-forward block: x += Wdown · (silu(Wgate·h) ⊙ Wup·h), h = norm(x)
            s.rmsNorm(s.x, w.ffnNorm, s.xb, rows: n, width: d)
            s.linear(.gate, layer: l, w, s.xb, s.gate, n: n)
            s.linear(.up, layer: l, w, s.xb, s.up, n: n)
            s.gatedActivation(.silu, count: n * c.feedForwardLength)
            s.linear(.down, layer: l, w, s.gate, s.proj, n: n)
            s.addInPlace(s.x, s.proj, count: n * d)
        }
        s.project(weights: weights, n: n, allLogits: allLogits)
        s.count = start + n
    }
}
