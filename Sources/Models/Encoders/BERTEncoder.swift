import CKernels
import Foundation
import Formats
import Kernels
import Tensor

/// A BERT encoder from safetensors + `config.json` (all-MiniLM-L6-v2 and other
/// `BertModel` checkpoints): absolute position and token-type embeddings, post-LN blocks
/// (LayerNorm after each residual add), erf GELU. Reference: Devlin et al. 2018 and
/// transformers `modeling_bert.py` (facts only).
///
/// Safetensors shapes arrive in ggml order, so `[out, in]` PyTorch weights are `[in, out]` views
/// that `MatMul.linear` takes as they are; nothing is copied but the small bias and norm vectors.
package struct BERTEncoder: TextEncoder {
    package struct Layer: Sendable {
        var query, key, value, output: EncoderLinear    // [d, d]
        var queryBias, keyBias, valueBias, outputBias: [Float]  // (d)
        var attentionNorm, attentionNormBias: [Float]   // (d)
        var up: EncoderLinear                           // [d, ffn]
        var upBias: [Float]                             // (ffn)
        var down: EncoderLinear                         // [ffn, d]
        var downBias: [Float]                           // (d)
        var outputNorm, outputNormBias: [Float]         // (d)
    }

    package let config: EncoderConfig
    package let precision: EncoderPrecision
    let wordEmbeddings: TensorView      // [d, vocab]
    let positionEmbeddings: TensorView  // [d, maxPositions]
    let typeRow: [Float]                // (d): token type 0
    let embeddingNorm, embeddingNormBias: [Float]
    let layers: [Layer]

    /// Loads `model.safetensors` with the hyperparameters of `config.json`.
    package init(file: SafetensorsFile, config c: EncoderConfig, precision: EncoderPrecision = .int16) throws(ModelError) {
        let d = c.embeddingLength
        // Checkpoints saved from `BertModel` have no `bert.` prefix; ones from task heads do.
        let prefix = file.hasTensor("bert.embeddings.word_embeddings.weight") ? "bert." : ""
        func load(_ name: String, _ shape: [Int]) throws(ModelError) -> TensorView {
            let t: TensorView
            do { t = try file.tensor(prefix + name) } catch { throw .format(error) }
            guard t.shape == shape else { throw .shapeMismatch(tensor: prefix + name, expected: shape, found: t.shape) }
            guard t.type.isSupportedWeightType else { throw .unsupportedTensorType(tensor: prefix + name, type: t.type.description) }
            return t
        }
        func vector(_ name: String, _ n: Int) throws(ModelError) -> [Float] { try load(name, [n]).floatArray() }
        func linear(_ name: String, _ shape: [Int]) throws(ModelError) -> EncoderLinear {
            EncoderLinear(try load(name, shape), precision: precision)
        }
        config = c
        self.precision = precision
        wordEmbeddings = try load("embeddings.word_embeddings.weight", [d, c.vocabularySize])
        positionEmbeddings = try load("embeddings.position_embeddings.weight", [d, c.maxPositions])
        let types = try load("embeddings.token_type_embeddings.weight", [d, c.typeVocabularySize]).floatArray()
        typeRow = Array(types[0..<d])
        embeddingNorm = try vector("embeddings.LayerNorm.weight", d)
        embeddingNormBias = try vector("embeddings.LayerNorm.bias", d)
        var layers: [Layer] = []
        for i in 0..<c.layerCount {
            let p = "encoder.layer.\(i)."
            layers.append(Layer(
                query: try linear(p + "attention.self.query.weight", [d, d]),
                key: try linear(p + "attention.self.key.weight", [d, d]),
                value: try linear(p + "attention.self.value.weight", [d, d]),
                output: try linear(p + "attention.output.dense.weight", [d, d]),
                queryBias: try vector(p + "attention.self.query.bias", d),
                keyBias: try vector(p + "attention.self.key.bias", d),
                valueBias: try vector(p + "attention.self.value.bias", d),
                outputBias: try vector(p + "attention.output.dense.bias", d),
                attentionNorm: try vector(p + "attention.output.LayerNorm.weight", d),
                attentionNormBias: try vector(p + "attention.output.LayerNorm.bias", d),
                up: try linear(p + "intermediate.dense.weight", [d, c.feedForwardLength]),
                upBias: try vector(p + "intermediate.dense.bias", c.feedForwardLength),
                down: try linear(p + "output.dense.weight", [c.feedForwardLength, d]),
                downBias: try vector(p + "output.dense.bias", d),
                outputNorm: try vector(p + "output.LayerNorm.weight", d),
                outputNormBias: try vector(p + "output.LayerNorm.bias", d)))
        }
        self.layers = layers
    }

    /// Loads `model.safetensors` and `config.json` from a model directory.
    package init(directory: String, precision: EncoderPrecision = .int16) throws(ModelError) {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: directory + "/config.json")) } catch {
            throw .invalidHyperparameter(key: "config.json", value: "unreadable in \(directory)")
        }
        let config = try EncoderConfig(bertConfigJSON: data)
        let file: SafetensorsFile
        do { file = try SafetensorsFile.open(path: directory + "/model.safetensors") } catch { throw .format(error) }
        try self.init(file: file, config: config, precision: precision)
    }

    package var evictedBytes: Int {
        layers.reduce(0) { sum, w in sum + [w.query, w.key, w.value, w.output, w.up, w.down].reduce(0) { $0 + $1.evictedBytes } }
    }

    package func meanPooled(_ batch: EncoderBatch, state s: EncoderState, out: UnsafeMutablePointer<Float>) {
        let c = config, d = c.embeddingLength, n = batch.tokenCount
        s.reserve(tokens: n, longestSequence: batch.longest)
        s.embed(batch, table: wordEmbeddings, positions: positionEmbeddings, typeRow: typeRow)
        s.layerNorm(s.x, rows: n, weight: embeddingNorm, bias: embeddingNormBias)
        let q = s.qkv, k = s.qkv + n * d, v = s.qkv + 2 * n * d
        for w in layers {
            // x = LN(x + Wo · attn(Wq x, Wk x, Wv x))
            s.linears([(w.query, w.queryBias, q), (w.key, w.keyBias, k), (w.value, w.valueBias, v)], s.x, n: n)
            s.attend(batch, q: q, k: k, v: v, stride: d)
            s.linear(w.output, bias: w.outputBias, s.attn, s.tmp, n: n)
            s.addLayerNorm(s.x, s.tmp, rows: n, weight: w.attentionNorm, bias: w.attentionNormBias)
            // x = LN(x + Wdown · gelu(Wup x))
            s.linear(w.up, bias: w.upBias, s.x, s.ffnA, n: n)
            od_gelu_erf(s.ffnA, s.ffnA, Int64(n * c.feedForwardLength))
            s.linear(w.down, bias: w.downBias, s.ffnA, s.tmp, n: n)
            s.addLayerNorm(s.x, s.tmp, rows: n, weight: w.outputNorm, bias: w.outputNormBias)
        }
        s.meanPool(batch, out: out)
    }
}
