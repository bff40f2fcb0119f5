import CKernels
import Formats
import Kernels
import Tensor

/// nomic-bert from GGUF (nomic-embed-text-v1.5): a BERT layout with rotary positions instead of
/// a position table, one fused QKV projection, SwiGLU feed-forward, no linear biases, and
/// post-LN blocks. Reference: Nussbaum et al. 2024 ("Nomic Embed") and llama.cpp's BERT graph
/// for `nomic-bert` (facts only: "neox" rotary pairing, SiLU(gate) ⊙ up).
///
/// Tensors (ggml order): `token_embd.weight` [d, vocab], `token_types.weight` [d, types],
/// `token_embd_norm.{weight,bias}` (d); per block `blk.N.`: `attn_qkv.weight` [d, 3d] (rows: Q,
/// then K, then V), `attn_output.weight` [d, d], `attn_output_norm.{weight,bias}` (d),
/// `ffn_gate.weight` / `ffn_up.weight` [d, ffn], `ffn_down.weight` [ffn, d],
/// `layer_output_norm.{weight,bias}` (d).
package struct NomicBERT: TextEncoder {
    package struct Layer: Sendable {
        var qkv: EncoderLinear                          // [d, 3d]
        var qkvBias: [Float]?                           // (3d), absent in nomic's files
        var output: EncoderLinear                       // [d, d]
        var attentionNorm, attentionNormBias: [Float]   // (d)
        var gate, up: EncoderLinear                     // [d, ffn]
        var down: EncoderLinear                         // [ffn, d]
        var outputNorm, outputNormBias: [Float]         // (d)
    }

    /// The GGUF `general.architecture` this file implements.
    package static let architecture = "nomic-bert"

    package let config: EncoderConfig
    package let precision: EncoderPrecision
    let tokenEmbeddings: TensorView  // [d, vocab]
    let typeRow: [Float]             // (d): token type 0
    let embeddingNorm, embeddingNormBias: [Float]
    let layers: [Layer]

    package init(file: GGUFFile, precision: EncoderPrecision = .int16) throws(ModelError) {
        let arch = Self.architecture
        guard let name = file.architecture else { throw .missingArchitecture }
        guard name == arch else { throw .unsupportedArchitecture(name) }
        let c = try EncoderConfig(gguf: file, arch: arch)
        let d = c.embeddingLength
        func load(_ name: String, _ shape: [Int]) throws(ModelError) -> TensorView {
            let t: TensorView
            do { t = try file.tensor(name) } catch { throw .format(error) }
            guard t.shape == shape else { throw .shapeMismatch(tensor: name, expected: shape, found: t.shape) }
            guard t.type.isSupportedWeightType else { throw .unsupportedTensorType(tensor: name, type: t.type.description) }
            return t
        }
        func vector(_ name: String, _ n: Int) throws(ModelError) -> [Float] { try load(name, [n]).floatArray() }
        func linear(_ name: String, _ shape: [Int]) throws(ModelError) -> EncoderLinear {
            EncoderLinear(try load(name, shape), precision: precision)
        }
        config = c
        self.precision = precision
        tokenEmbeddings = try load("token_embd.weight", [d, c.vocabularySize])
        typeRow = Array(try load("token_types.weight", [d, c.typeVocabularySize]).floatArray()[0..<d])
        embeddingNorm = try vector("token_embd_norm.weight", d)
        embeddingNormBias = try vector("token_embd_norm.bias", d)
        var layers: [Layer] = []
        for i in 0..<c.layerCount {
            let p = "blk.\(i)."
            layers.append(Layer(
                qkv: try linear(p + "attn_qkv.weight", [d, 3 * d]),
                qkvBias: file.hasTensor(p + "attn_qkv.bias") ? try vector(p + "attn_qkv.bias", 3 * d) : nil,
                output: try linear(p + "attn_output.weight", [d, d]),
                attentionNorm: try vector(p + "attn_output_norm.weight", d),
                attentionNormBias: try vector(p + "attn_output_norm.bias", d),
                gate: try linear(p + "ffn_gate.weight", [d, c.feedForwardLength]),
                up: try linear(p + "ffn_up.weight", [d, c.feedForwardLength]),
                down: try linear(p + "ffn_down.weight", [c.feedForwardLength, d]),
                outputNorm: try vector(p + "layer_output_norm.weight", d),
                outputNormBias: try vector(p + "layer_output_norm.bias", d)))
        }
        self.layers = layers
    }

    package var evictedBytes: Int {
        layers.reduce(0) { sum, w in sum + [w.qkv, w.output, w.gate, w.up, w.down].reduce(0) { $0 + $1.evictedBytes } }
    }

    package func meanPooled(_ batch: EncoderBatch, state s: EncoderState, out: UnsafeMutablePointer<Float>) {
        let c = config, d = c.embeddingLength, n = batch.tokenCount, ffn = c.feedForwardLength
        s.reserve(tokens: n, longestSequence: batch.longest)
        s.embed(batch, table: tokenEmbeddings, positions: nil, typeRow: typeRow)
        s.layerNorm(s.x, rows: n, weight: embeddingNorm, bias: embeddingNormBias)
        // Fused rows of 3d: queries at column 0, keys at d, values at 2d.
        let q = s.qkv, k = s.qkv + d, v = s.qkv + 2 * d
        for w in layers {
            // x = LN(x + Wo · attn(rope(Q), rope(K), V)), [Q K V] = Wqkv x
            s.linear(w.qkv, bias: w.qkvBias, s.x, s.qkv, n: n)
            s.rotate(batch, q: q, k: k, stride: 3 * d)
            s.attend(batch, q: q, k: k, v: v, stride: 3 * d)
            s.linear(w.output, bias: nil, s.attn, s.tmp, n: n)
            s.addLayerNorm(s.x, s.tmp, rows: n, weight: w.attentionNorm, bias: w.attentionNormBias)
            // x = LN(x + Wdown · (silu(Wgate x) ⊙ Wup x))
            s.linears([(w.gate, nil, s.ffnA), (w.up, nil, s.ffnB)], s.x, n: n)
            VectorMath.silu(s.ffnA, out: s.ffnA, count: n * ffn)
            VectorMath.mul(s.ffnA, s.ffnB, out: s.ffnA, count: n * ffn)
            s.linear(w.down, bias: nil, s.ffnA, s.tmp, n: n)
            s.addLayerNorm(s.x, s.tmp, rows: n, weight: w.outputNorm, bias: w.outputNormBias)
        }
        s.meanPool(batch, out: out)
    }
}
