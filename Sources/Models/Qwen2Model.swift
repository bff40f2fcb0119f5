import Kernels
import Tensor

/// Qwen 2 / 2.5 decoder: the llama block (pre-norm RMSNorm, grouped-query attention, SwiGLU)
/// with learned biases on the query, key and value projections, half-split ("neox") RoPE, and an
/// output head that is its own tensor or tied to the embeddings (the small models tie them).
/// Reference: llama.cpp `src/models/qwen2.cpp` graph (facts only).
package struct Qwen2Model: DecoderModel {
    package let config: DecoderConfig
    package let weights: DecoderWeights

    package func forward(_ tokens: UnsafeBufferPointer<Int32>, state s: DecoderState, allLogits: UnsafeMutablePointer<Float>?) {
        let c = config, n = tokens.count, d = c.embeddingLength, start = s.count
        s.embed(tokens, table: weights.tokenEmbedding, scale: 1)
        for (l, w) in weights.layers.enumerated() {
            // Attention block: x += Wo · attn(rope(Wq·h + bq), rope(Wk·h + bk), Wv·h + bv)
            s.rmsNorm(s.x, w.attentionNorm, s.xb, rows: n, width: d)
            s.linear(.query, layer: l, w, s.xb, s.q, n: n)
            s.linear(.key, layer: l, w, s.xb, s.k, n: n)
            s.linear(.value, layer: l, w, s.xb, s.v, n: n)
            if let bq = w.queryBias, let bk = w.keyBias, let bv = w.valueBias {
                s.addBias(s.q, bq, rows: n, width: c.queryDim)
                s.addBias(s.k, bk, rows: n, width: c.kvDim)
                s.addBias(s.v, bv, rows: n, width: c.kvDim)
            }
            for t in 0..<n { s.rope(row: t, position: start + t, base: c.ropeBase, style: .halves,
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
