import Kernels
import Tensor

/// Qwen 3 decoder: the llama block without projection biases, with a per-head RMSNorm of the
/// queries and keys (QK-norm) before half-split ("neox") RoPE; the head width may differ from
/// d / heads (`attention.key_length`).
/// Reference: llama.cpp `src/models/qwen3.cpp` graph (facts only).
package struct Qwen3Model: DecoderModel {
    package let config: DecoderConfig
    package let weights: DecoderWeights

    package func forward(_ tokens: UnsafeBufferPointer<Int32>, state s: DecoderState, allLogits: UnsafeMutablePointer<Float>?) {
        let c = config, n = tokens.count, d = c.embeddingLength, start = s.count
        s.embed(tokens, table: weights.tokenEmbedding, scale: 1)
        for (l, w) in weights.layers.enumerated() {
            s.rmsNorm(s.x, w.attentionNorm, s.xb, rows: n, width: d)
            s.linear(.query, layer: l, w, s.xb, s.q, n: n)
            s.linear(.key, layer: l, w, s.xb, s.k, n: n)
            s.linear(.value, layer: l, w, s.xb, s.v, n: n)
            if let qn = w.queryNorm, let kn = w.keyNorm {
                s.rmsNorm(s.q, qn, s.q, rows: n * c.headCount, width: c.headDim)
                s.rmsNorm(s.k, kn, s.k, rows: n * c.kvHeadCount, width: c.headDim)
            }
            for t in 0..<n {
                s.rope(row: t, position: start + t, base: c.ropeBase, style: .halves,
                       frequencyScale: c.ropeFrequencyScale, factors: weights.ropeFrequencies)
            }
            s.cacheKeysValues(layer: l, start: start, n: n)
            s.attend(layer: l, start: start, n: n, window: nil)
            s.linear(.output, layer: l, w, s.attnOut, s.proj, n: n)
            s.addInPlace(s.x, s.proj, count: n * d)
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
