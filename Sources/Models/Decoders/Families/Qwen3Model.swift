import Kernels
import Tensor

/// Qwen 3 decoder: the llama block without projection biases, with a per-head RMSNorm of the
/// queries and keys (QK-norm) before half-split ("neox") RoPE; the head width may differ from
/// d / heads (`attention.key_length`).
/// Reference: llama.cpp `src/models/qwen3.cpp` graph (facts only).
package struct Qwen3Model: DecoderModel {
    package let config: DecoderConfig
    package let weights: DecoderWeights

    package func forward(_ tokens: UnsafeBufferPointer<Int32>, rows: DecoderRows, scratch s: DecoderState, allLogits: UnsafeMutablePointer<Float>?) {
        let c = config, n = tokens.count, d = c.embeddingLength
        s.embed(tokens, table: weights.tokenEmbedding, scale: 1)
        for (l, w) in weights.layers.enumerated() {
            s.rmsNorm(s.x, w.attentionNorm, s.xb, rows: n, width: d)
            s.projectQueryKeyValue(layer: l, w, s.xb, n: n)
            s.normalizeQueryKeyHeads(w, n: n)
            for t in 0..<n {
                s.rope(row: t, position: rows.positions[t], base: c.ropeBase, style: .halves,
                       frequencyScale: c.ropeFrequencyScale, factors: weights.ropeFrequencies)
            }
            s.attentionOutput(layer: l, w, rows: rows, window: nil)
            s.feedForward(layer: l, w, n: n, activation: .silu)
        }
        s.project(weights: weights, rows: rows, allLogits: allLogits)
        rows.advance()
    }
}
