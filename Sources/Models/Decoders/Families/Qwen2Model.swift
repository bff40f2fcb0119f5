import Kernels
import Tensor

/// Qwen 2 / 2.5 decoder: the llama block (pre-norm RMSNorm, grouped-query attention, SwiGLU)
/// with learned biases on the query, key and value projections, half-split ("neox") RoPE, and an
/// output head that is its own tensor or tied to the embeddings (the small models tie them).
/// Reference: llama.cpp `src/models/qwen2.cpp` graph (facts only).
package struct Qwen2Model: DecoderModel {
    package let config: DecoderConfig
    package let weights: DecoderWeights

    package func forward(_ tokens: UnsafeBufferPointer<Int32>, rows: DecoderRows, scratch s: DecoderState, allLogits: UnsafeMutablePointer<Float>?) {
        let c = config, n = tokens.count, d = c.embeddingLength
        s.embed(tokens, table: weights.tokenEmbedding, scale: 1)
        for (l, w) in weights.layers.enumerated() {
            s.rmsNorm(s.x, w.attentionNorm, s.xb, rows: n, width: d)
            s.projectQueryKeyValue(layer: l, w, s.xb, n: n)
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
