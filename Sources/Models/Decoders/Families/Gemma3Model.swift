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

    package func forward(_ tokens: UnsafeBufferPointer<Int32>, rows: DecoderRows, scratch s: DecoderState, allLogits: UnsafeMutablePointer<Float>?) {
        let c = config, n = tokens.count, d = c.embeddingLength
        s.embed(tokens, table: weights.tokenEmbedding, scale: Float(d).squareRoot())
        for (l, w) in weights.layers.enumerated() {
            let sliding = c.isSliding(layer: l)
            s.rmsNorm(s.x, w.attentionNorm, s.xb, rows: n, width: d)
            s.projectQueryKeyValue(layer: l, w, s.xb, n: n)
            s.normalizeQueryKeyHeads(w, n: n)
            for t in 0..<n {
                s.rope(row: t, position: rows.positions[t], base: sliding ? c.ropeBaseSliding : c.ropeBase, style: .halves,
                       frequencyScale: c.ropeFrequencyScale, factors: weights.ropeFrequencies)
            }
            s.attentionOutput(layer: l, w, rows: rows, window: sliding ? c.slidingWindow : nil)
            s.feedForward(layer: l, w, n: n, activation: .gelu)
        }
        s.project(weights: weights, rows: rows, allLogits: allLogits)
        rows.advance()
    }
}
