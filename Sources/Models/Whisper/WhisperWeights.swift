import Formats
import Kernels
import Tensor

/// A linear layer: a mapped weight of shape [in, out] (ggml order) and an optional f32 bias.
package struct WhisperLinear: Sendable {
    package let weight: TensorView
    package let bias: [Float]?
    package var outputs: Int { weight.rowCount }
}

/// Layer-norm parameters, converted to f32 at load (they are tiny).
package struct WhisperLayerNorm: Sendable {
    package let gamma: [Float]
    package let beta: [Float]
}

package struct WhisperEncoderLayer: Sendable {
    package let attentionNorm: WhisperLayerNorm
    package let qkv: WhisperLinear           // [d, 3d], fused query/key/value
    package let attentionOutput: WhisperLinear // [d, d]
    package let ffnNorm: WhisperLayerNorm
    package let fc1: WhisperLinear           // [d, 4d]
    package let fc2: WhisperLinear           // [4d, d]
}

package struct WhisperDecoderLayer: Sendable {
    package let selfNorm: WhisperLayerNorm
    package let selfQKV: WhisperLinear       // [d, 3d]
    package let selfOutput: WhisperLinear    // [d, d]
    package let crossNorm: WhisperLayerNorm
    package let crossQuery: WhisperLinear    // [d, d]
    package let crossKeyValue: WhisperLinear // [d, 2d], applied once per window to the encoder output
    package let crossOutput: WhisperLinear   // [d, d]
    package let ffnNorm: WhisperLayerNorm
    package let fc1: WhisperLinear
    package let fc2: WhisperLinear
}

/// All weights of a Whisper model. Matrices stay memory-mapped (F16 or F32); vectors are
/// converted to f32 once.
package struct WhisperWeights: Sendable {
    /// Convolutions as linear maps over (channel, tap) columns: [mels·3, d] and [d·3, d].
    package let conv1: WhisperLinear
    package let conv2: WhisperLinear
    package let encoderPositions: [Float]     // (1500, d)
    package let encoderLayers: [WhisperEncoderLayer]
    package let encoderNorm: WhisperLayerNorm
    package let tokenEmbedding: TensorView    // [d, vocab]; also the output projection
    package let decoderPositions: [Float]     // (448, d)
    package let decoderLayers: [WhisperDecoderLayer]
    package let decoderNorm: WhisperLayerNorm

    package init(file: CTranslate2Model, config c: WhisperConfig) throws(ModelError) {
        let d = c.width
        func tensor(_ name: String, _ shape: [Int]) throws(ModelError) -> TensorView {
            let t: TensorView
            do { t = try file.tensor(name) } catch { throw .format(error) }
            guard t.shape == shape else { throw .shapeMismatch(tensor: name, expected: shape, found: t.shape) }
            guard t.type == .f32 || t.type == .f16 || t.type == .bf16 else {
                throw .unsupportedTensorType(tensor: name, type: t.type.description)
            }
            return t
        }
        func vector(_ name: String, _ count: Int) throws(ModelError) -> [Float] {
            let t = try tensor(name, [count])
            return [Float](unsafeUninitializedCapacity: count) { buffer, n in
                Dequantize.row(t.type, t.data, buffer.baseAddress!, count: count)
                n = count
            }
        }
        func matrix(_ name: String, rows: Int, cols: Int) throws(ModelError) -> [Float] {
            let t = try tensor(name, [cols, rows])
            return [Float](unsafeUninitializedCapacity: rows * cols) { buffer, n in
                Dequantize.row(t.type, t.data, buffer.baseAddress!, count: rows * cols)
                n = rows * cols
            }
        }
        func linear(_ prefix: String, inputs: Int, outputs: Int, bias: Bool = true) throws(ModelError) -> WhisperLinear {
            WhisperLinear(weight: try tensor("\(prefix)/weight", [inputs, outputs]),
                          bias: bias ? try vector("\(prefix)/bias", outputs) : nil)
        }
        func norm(_ prefix: String) throws(ModelError) -> WhisperLayerNorm {
            WhisperLayerNorm(gamma: try vector("\(prefix)/gamma", d), beta: try vector("\(prefix)/beta", d))
        }
        func conv(_ prefix: String, inputs: Int) throws(ModelError) -> WhisperLinear {
            // [out, in, 3] row-major: each output's row is its (channel, tap) weights, tap fastest.
            let w = try tensor("\(prefix)/weight", [3, inputs, d])
            let flat = TensorView(name: w.name, type: w.type, shape: [3 * inputs, d], data: w.data,
                                  byteCount: w.byteCount, owner: w.owner)
            return WhisperLinear(weight: flat, bias: try vector("\(prefix)/bias", d))
        }
        conv1 = try conv("encoder/conv1", inputs: c.melCount)
        conv2 = try conv("encoder/conv2", inputs: d)
        encoderPositions = try matrix("encoder/position_encodings/encodings", rows: c.audioContext, cols: d)
        var encoder: [WhisperEncoderLayer] = []
        for l in 0..<c.encoderLayers {
            let p = "encoder/layer_\(l)"
            encoder.append(WhisperEncoderLayer(
                attentionNorm: try norm("\(p)/self_attention/layer_norm"),
                qkv: try linear("\(p)/self_attention/linear_0", inputs: d, outputs: 3 * d),
                attentionOutput: try linear("\(p)/self_attention/linear_1", inputs: d, outputs: d),
                ffnNorm: try norm("\(p)/ffn/layer_norm"),
                fc1: try linear("\(p)/ffn/linear_0", inputs: d, outputs: c.feedForwardWidth),
                fc2: try linear("\(p)/ffn/linear_1", inputs: c.feedForwardWidth, outputs: d)))
        }
        encoderLayers = encoder
        encoderNorm = try norm("encoder/layer_norm")
        tokenEmbedding = try tensor("decoder/embeddings/weight", [d, c.vocabularySize])
        decoderPositions = try matrix("decoder/position_encodings/encodings", rows: c.textContext, cols: d)
        var decoder: [WhisperDecoderLayer] = []
        for l in 0..<c.decoderLayers {
            let p = "decoder/layer_\(l)"
            decoder.append(WhisperDecoderLayer(
                selfNorm: try norm("\(p)/self_attention/layer_norm"),
                selfQKV: try linear("\(p)/self_attention/linear_0", inputs: d, outputs: 3 * d),
                selfOutput: try linear("\(p)/self_attention/linear_1", inputs: d, outputs: d),
                crossNorm: try norm("\(p)/attention/layer_norm"),
                crossQuery: try linear("\(p)/attention/linear_0", inputs: d, outputs: d),
                crossKeyValue: try linear("\(p)/attention/linear_1", inputs: d, outputs: 2 * d),
                crossOutput: try linear("\(p)/attention/linear_2", inputs: d, outputs: d),
                ffnNorm: try norm("\(p)/ffn/layer_norm"),
                fc1: try linear("\(p)/ffn/linear_0", inputs: d, outputs: c.feedForwardWidth),
                fc2: try linear("\(p)/ffn/linear_1", inputs: c.feedForwardWidth, outputs: d)))
        }
        decoderLayers = decoder
        decoderNorm = try norm("decoder/layer_norm")
    }
}
