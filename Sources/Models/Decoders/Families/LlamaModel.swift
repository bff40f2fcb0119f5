import Kernels
import Tensor

/// Llama-family decoder (SmolLM2, Llama 2/3 layouts): pre-norm RMSNorm blocks, grouped-query
/// attention with interleaved RoPE, SwiGLU feed-forward, optional tied output head. Llama 3.x
/// files divide RoPE's angles by `rope_freqs.weight`; linear RoPE scaling divides positions.
/// Reference: llama.cpp `src/models/llama.cpp` graph (facts only).
package struct LlamaModel: DecoderModel {
    package let config: DecoderConfig
    package let weights: DecoderWeights

    package func forward(_ tokens: UnsafeBufferPointer<Int32>, rows: DecoderRows, scratch s: DecoderState, allLogits: UnsafeMutablePointer<Float>?) {
        let c = config, n = tokens.count, d = c.embeddingLength
        s.embed(tokens, table: weights.tokenEmbedding, scale: 1)
        for (l, w) in weights.layers.enumerated() {
            s.rmsNorm(s.x, w.attentionNorm, s.xb, rows: n, width: d)
            s.projectQueryKeyValue(layer: l, w, s.xb, n: n)
            for t in 0..<n {
                s.rope(row: t, position: rows.positions[t], base: c.ropeBase, style: .interleaved,
                       frequencyScale: c.ropeFrequencyScale, factors: weights.ropeFrequencies)
            }
            s.attentionOutput(layer: l, w, rows: rows, window: nil)
            s.feedForward(layer: l, w, n: n, activation: .silu)
        }
        s.project(weights: weights, rows: rows, allLogits: allLogits)
        rows.advance()
    }
}
