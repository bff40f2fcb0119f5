import Kernels
import Tensor

/// Phi-3 decoder: the llama block with Q/K/V in one fused projection and gate/up in another
/// (split into row views at load, see `DecoderWeights`), half-split ("neox") RoPE, SwiGLU and
/// an untied output head. llama.cpp runs every layer with global attention (it disables the
/// sliding window the converters write), and so do we. LongRoPE files (Phi-3.5, the 128k
/// models) divide RoPE's angles by the short factors while the session's context fits the
/// training context and by the long ones beyond it, and scale cos and sin by the attention factor.
/// Reference: llama.cpp `src/models/phi3.cpp` graph (facts only).
package struct Phi3Model: DecoderModel {
    package let config: DecoderConfig
    package let weights: DecoderWeights

    package func forward(_ tokens: UnsafeBufferPointer<Int32>, rows: DecoderRows, scratch s: DecoderState, allLogits: UnsafeMutablePointer<Float>?) {
        let c = config, n = tokens.count, d = c.embeddingLength
        let long = c.ropeOriginalContext.map { s.contextLength > $0 } ?? false
        let factors = (long ? weights.ropeFactorsLong : weights.ropeFactorsShort) ?? weights.ropeFrequencies
        s.embed(tokens, table: weights.tokenEmbedding, scale: 1)
        for (l, w) in weights.layers.enumerated() {
            s.rmsNorm(s.x, w.attentionNorm, s.xb, rows: n, width: d)
            s.projectQueryKeyValue(layer: l, w, s.xb, n: n)
            for t in 0..<n {
                s.rope(row: t, position: rows.positions[t], base: c.ropeBase, style: .halves,
                       frequencyScale: c.ropeFrequencyScale, factors: factors, magnitude: c.ropeAttentionFactor)
            }
            s.attentionOutput(layer: l, w, rows: rows, window: nil)
            s.feedForward(layer: l, w, n: n, activation: .silu)
        }
        s.project(weights: weights, rows: rows, allLogits: allLogits)
        rows.advance()
    }
}
