import Formats
import Tensor

/// The weights of one decoder layer, checked against the hyperparameters at load.
///
/// Norm weights and biases are F32 vectors; projections may be any supported weight type.
package struct DecoderLayerWeights: Sendable {
    package var attentionNorm: TensorView      // (d)
    package var query: TensorView              // [d, heads*headDim]
    package var key: TensorView                // [d, kvHeads*headDim]
    package var value: TensorView              // [d, kvHeads*headDim]
    package var output: TensorView             // [heads*headDim, d]
    package var ffnNorm: TensorView            // (d)
    package var gate: TensorView               // [d, ffn]
    package var up: TensorView                 // [d, ffn]
    package var down: TensorView               // [ffn, d]
    package var queryBias: TensorView?         // (heads*headDim), Qwen 2
    package var keyBias: TensorView?           // (kvHeads*headDim)
    package var valueBias: TensorView?         // (kvHeads*headDim)
    package var queryNorm: TensorView?         // (headDim), Gemma 3 QK-norm
    package var keyNorm: TensorView?           // (headDim)
    package var postAttentionNorm: TensorView? // (d), Gemma 3 sandwich norm
    package var postFFNNorm: TensorView?       // (d)
}

/// All weights of a decoder, memory-mapped from the GGUF (nothing copied).
///
/// Every tensor of the file must be one the architecture reads: a tensor left over (say a
/// `rope_freqs.weight` or a bias the decoder would not add) changes the math, so it is a typed
/// error rather than a model that runs and answers wrongly.
package struct DecoderWeights: Sendable {
    package var tokenEmbedding: TensorView     // [d, vocab]
    package var outputNorm: TensorView         // (d)
    /// The output head; the token embedding when the model ties them.
    package var output: TensorView             // [d, vocab]
    package var layers: [DecoderLayerWeights]
    /// Llama 3.x RoPE frequency factors: angle i is divided by factor i. (headDim / 2)
    package var ropeFrequencies: TensorView?
    /// Phi-3 LongRoPE factors for contexts up to / beyond `ropeOriginalContext`. (headDim / 2)
    package var ropeFactorsShort: TensorView?
    package var ropeFactorsLong: TensorView?

    package init(file: GGUFFile, config c: DecoderConfig) throws(ModelError) {
        let d = c.embeddingLength
        var used = Set<String>()
        func load(_ name: String, _ shape: [Int], norm: Bool = false) throws(ModelError) -> TensorView {
            let t: TensorView
            do { t = try file.tensor(name) } catch { throw .format(error) }
            guard t.shape == shape else { throw .shapeMismatch(tensor: name, expected: shape, found: t.shape) }
            if norm {
                guard t.type == .f32 else { throw .unsupportedTensorType(tensor: name, type: t.type.description) }
            } else {
                guard t.type.isSupportedWeightType else { throw .unsupportedTensorType(tensor: name, type: t.type.description) }
            }
            used.insert(name)
            return t
        }
        func loadIf(_ wanted: Bool, _ name: String, _ shape: [Int]) throws(ModelError) -> TensorView? {
            wanted ? try load(name, shape, norm: true) : nil
        }
        tokenEmbedding = try load("token_embd.weight", [d, c.vocabularySize])
        outputNorm = try load("output_norm.weight", [d], norm: true)
        output = file.hasTensor("output.weight") ? try load("output.weight", [d, c.vocabularySize]) : tokenEmbedding
        let arch = c.architecture
        ropeFrequencies = arch == .llama && file.hasTensor("rope_freqs.weight")
            ? try load("rope_freqs.weight", [c.headDim / 2], norm: true) : nil
        let longRoPE = arch == .phi3 && file.hasTensor("rope_factors_short.weight")
        ropeFactorsShort = longRoPE ? try load("rope_factors_short.weight", [c.headDim / 2], norm: true) : nil
        ropeFactorsLong = longRoPE ? try load("rope_factors_long.weight", [c.headDim / 2], norm: true) : nil
        let biased = arch == .qwen2
        let qkNorm = arch == .gemma3 || arch == .qwen3
        let sandwich = arch == .gemma2 || arch == .gemma3
        let fused = arch == .phi3
        var layers: [DecoderLayerWeights] = []
        // The count is the file's word; every layer needs tensors of its own, so the tensor table bounds it.
        layers.reserveCapacity(min(c.layerCount, file.tensorInfos.count))
        for i in 0..<c.layerCount {
            let p = "blk.\(i)."
            let query: TensorView, key: TensorView, value: TensorView, gate: TensorView, up: TensorView
            if fused {
                // Phi-3 stacks Q, K and V (in that order) in one matrix, and gate then up in
                // another; each part is a run of whole output rows, so it is a view, not a copy.
                let qkv = try load(p + "attn_qkv.weight", [d, c.queryDim + 2 * c.kvDim])
                query = qkv.rows(0..<c.queryDim)
                key = qkv.rows(c.queryDim..<c.queryDim + c.kvDim)
                value = qkv.rows(c.queryDim + c.kvDim..<c.queryDim + 2 * c.kvDim)
                let gateUp = try load(p + "ffn_up.weight", [d, 2 * c.feedForwardLength])
                gate = gateUp.rows(0..<c.feedForwardLength)
                up = gateUp.rows(c.feedForwardLength..<2 * c.feedForwardLength)
            } else {
                query = try load(p + "attn_q.weight", [d, c.queryDim])
                key = try load(p + "attn_k.weight", [d, c.kvDim])
                value = try load(p + "attn_v.weight", [d, c.kvDim])
                gate = try load(p + "ffn_gate.weight", [d, c.feedForwardLength])
                up = try load(p + "ffn_up.weight", [d, c.feedForwardLength])
            }
            layers.append(DecoderLayerWeights(
                attentionNorm: try load(p + "attn_norm.weight", [d], norm: true),
                query: query, key: key, value: value,
                output: try load(p + "attn_output.weight", [c.queryDim, d]),
                ffnNorm: try load(p + "ffn_norm.weight", [d], norm: true),
                gate: gate, up: up,
                down: try load(p + "ffn_down.weight", [c.feedForwardLength, d]),
                queryBias: try loadIf(biased, p + "attn_q.bias", [c.queryDim]),
                keyBias: try loadIf(biased, p + "attn_k.bias", [c.kvDim]),
                valueBias: try loadIf(biased, p + "attn_v.bias", [c.kvDim]),
                queryNorm: try loadIf(qkNorm, p + "attn_q_norm.weight", [c.headDim]),
                keyNorm: try loadIf(qkNorm, p + "attn_k_norm.weight", [c.headDim]),
                postAttentionNorm: try loadIf(sandwich, p + "post_attention_norm.weight", [d]),
                postFFNNorm: try loadIf(sandwich, p + "post_ffw_norm.weight", [d])))
        }
        self.layers = layers
        // In file order, so the error names the first stray tensor deterministically.
        if let stray = file.tensorInfos.first(where: { !used.contains($0.name) }) {
            throw .unexpectedTensor(name: stray.name, architecture: c.architecture.rawValue)
        }
    }

    /// Bytes of weight data the model maps (for residency estimates). Views into a fused
    /// matrix add up to that matrix.
    package var byteCount: Int {
        var total = tokenEmbedding.byteCount + outputNorm.byteCount
        total += [ropeFrequencies, ropeFactorsShort, ropeFactorsLong].reduce(0) { $0 + ($1?.byteCount ?? 0) }
        if output.data != tokenEmbedding.data { total += output.byteCount }
        for l in layers {
            total += [l.attentionNorm, l.query, l.key, l.value, l.output, l.ffnNorm, l.gate, l.up, l.down]
                .reduce(0) { $0 + $1.byteCount }
            total += [l.queryBias, l.keyBias, l.valueBias, l.queryNorm, l.keyNorm, l.postAttentionNorm, l.postFFNNorm]
                .reduce(0) { $0 + ($1?.byteCount ?? 0) }
        }
        return total
    }
}

extension TensorView {
    /// Output rows `range` of a [in, out] weight, as a view of the same bytes.
    func rows(_ range: Range<Int>) -> TensorView {
        TensorView(name: "\(name)[\(range.lowerBound)..<\(range.upperBound)]", type: type, shape: [rowLength, range.count],
                   data: row(range.lowerBound), byteCount: range.count * rowBytes, owner: owner)
    }

    /// The tensor's data as F32 (callers have checked `type == .f32`).
    @inline(__always) package var floats: UnsafePointer<Float> { data.assumingMemoryBound(to: Float.self) }
}
