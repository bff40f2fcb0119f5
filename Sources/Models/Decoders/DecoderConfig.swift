import Formats

/// Hyperparameters of a decoder-only transformer, read from `<arch>.*` GGUF metadata.
///
/// Every key that changes the math is either implemented here or refused with a typed error
/// (`unsupportedHyperparameter`), never ignored.
package struct DecoderConfig: Sendable, Equatable {
    package var architecture: Architecture
    package var layerCount: Int
    package var embeddingLength: Int
    package var headCount: Int
    package var kvHeadCount: Int
    package var headDim: Int
    package var feedForwardLength: Int
    package var contextLength: Int
    package var vocabularySize: Int
    package var rmsEpsilon: Float
    /// RoPE base of global-attention layers.
    package var ropeBase: Float
    /// RoPE base of sliding-window layers (Gemma 3's local layers); equals `ropeBase` elsewhere.
    package var ropeBaseSliding: Float
    /// Multiplier of every RoPE angle: 1 / factor under linear RoPE scaling, else 1.
    package var ropeFrequencyScale: Float
    /// LongRoPE (Phi-3): the training context past which the long factors apply, and the factor
    /// multiplying RoPE's cos and sin at every length.
    package var ropeOriginalContext: Int?
    package var ropeAttentionFactor: Float
    /// Sliding-window size in tokens, or nil when every layer attends globally.
    package var slidingWindow: Int?
    /// Every `slidingWindowPattern`-th layer is global; the others slide (Gemma 3: 6, Gemma 2: 2).
    package var slidingWindowPattern: Int
    /// Multiplier applied to queries before the dot product with keys.
    package var attentionScale: Float
    /// Attention scores become cap · tanh(score / cap) before the softmax (Gemma 2).
    package var attentionSoftcap: Float?
    /// Output logits become cap · tanh(logit / cap) (Gemma 2).
    package var finalLogitSoftcap: Float?

    /// Query width (`headCount * headDim`).
    package var queryDim: Int { headCount * headDim }
    /// Key/value width (`kvHeadCount * headDim`).
    package var kvDim: Int { kvHeadCount * headDim }

    /// Whether layer `index` uses the sliding window.
    package func isSliding(layer index: Int) -> Bool {
        guard slidingWindow != nil, slidingWindowPattern > 1 else { return false }
        return index % slidingWindowPattern < slidingWindowPattern - 1
    }

    package init(file: GGUFFile) throws(ModelError) {
        let arch = try Architecture(file: file)
        let p = arch.rawValue
        func int(_ key: String) throws(ModelError) -> Int {
            guard let v = file.int("\(p).\(key)") else { throw .invalidHyperparameter(key: "\(p).\(key)", value: "missing") }
            guard v > 0, v < 1 << 24 else { throw .invalidHyperparameter(key: "\(p).\(key)", value: String(v)) }
            return v
        }
        func positive(_ key: String) throws(ModelError) -> Float? {
            guard let v = file.float("\(p).\(key)") else { return nil }
            guard v > 0, v.isFinite else { throw .invalidHyperparameter(key: "\(p).\(key)", value: String(v)) }
            return v
        }
        architecture = arch
        layerCount = try int("block_count")
        embeddingLength = try int("embedding_length")
        headCount = try int("attention.head_count")
        kvHeadCount = file.int("\(p).attention.head_count_kv") ?? headCount
        feedForwardLength = try int("feed_forward_length")
        contextLength = try int("context_length")
        headDim = file.int("\(p).attention.key_length") ?? embeddingLength / headCount
        rmsEpsilon = file.float("\(p).attention.layer_norm_rms_epsilon") ?? 1e-5
        ropeBase = file.float("\(p).rope.freq_base") ?? 10_000
        guard kvHeadCount > 0, headCount % kvHeadCount == 0 else {
            throw .invalidHyperparameter(key: "\(p).attention.head_count_kv", value: String(kvHeadCount))
        }
        guard headDim > 0, headDim % 2 == 0 else {
            throw .invalidHyperparameter(key: "\(p).attention.key_length", value: String(headDim))
        }
        if let v = file.int("\(p).attention.value_length"), v != headDim {
            throw .unsupportedHyperparameter(key: "\(p).attention.value_length", value: String(v))
        }
        if let dims = file.int("\(p).rope.dimension_count"), dims != headDim {
            // Partial rotary embeddings (RoPE over only the first `dims` of each head).
            throw .unsupportedHyperparameter(key: "\(p).rope.dimension_count", value: String(dims))
        }
        guard let tokens = file.stringArray("tokenizer.ggml.tokens") else {
            throw .invalidHyperparameter(key: "tokenizer.ggml.tokens", value: "missing")
        }
        vocabularySize = tokens.count
        ropeFrequencyScale = try Self.ropeFrequencyScale(file: file, prefix: p)
        ropeBaseSliding = ropeBase
        ropeOriginalContext = nil
        ropeAttentionFactor = 1
        slidingWindow = nil
        slidingWindowPattern = 1
        attentionScale = 1 / Float(headDim).squareRoot()
        attentionSoftcap = nil
        finalLogitSoftcap = nil
        switch arch {
        case .llama, .qwen2, .qwen3:
            break
        case .phi3:
            // llama.cpp disables Phi-3's sliding window (its converters do not write the pattern
            // the models were trained with), so every layer attends globally there too.
            ropeOriginalContext = file.int("\(p).rope.scaling.original_context_length")
            ropeAttentionFactor = try positive("rope.scaling.attn_factor") ?? 1
        case .gemma2:
            // Every other layer slides, starting with layer 0 (llama.cpp: swa pattern 2). Queries
            // are scaled by 1/sqrt(headDim), except on the 27B (46 layers), which uses
            // 1/sqrt(d / heads) as the HF config's query_pre_attn_scalar says.
            slidingWindow = file.int("\(p).attention.sliding_window")
            slidingWindowPattern = 2
            if layerCount == 46 { attentionScale = 1 / Float(embeddingLength / headCount).squareRoot() }
            attentionSoftcap = try positive("attn_logit_softcapping")
            finalLogitSoftcap = try positive("final_logit_softcapping")
        case .gemma3:
            // Gemma 3 local layers use a fixed RoPE base of 10 000 (the HF config's
            // `rope_local_base_freq`); llama.cpp hard-codes the same for gemma3.
            ropeBaseSliding = 10_000
            slidingWindow = file.int("\(p).attention.sliding_window")
            slidingWindowPattern = 6
        }
        if arch != .gemma2 {
            for key in ["attn_logit_softcapping", "final_logit_softcapping"] {
                if let v = file.float("\(p).\(key)"), v != 0 { throw .unsupportedHyperparameter(key: "\(p).\(key)", value: String(v)) }
            }
        }
    }

    /// The RoPE angle multiplier the file's scaling metadata asks for, read as llama.cpp reads
    /// it: a factor (`rope.scaling.factor`, or the older `rope.scale_linear`) with no type is
    /// linear scaling, which divides positions by the factor; type `none` never scales. The
    /// other types (YaRN, LongRoPE) rewrite the angles per dimension and are refused until
    /// implemented, instead of being run with unscaled (wrong) positions.
    private static func ropeFrequencyScale(file: GGUFFile, prefix p: String) throws(ModelError) -> Float {
        let factor = file.float("\(p).rope.scaling.factor") ?? file.float("\(p).rope.scale_linear") ?? 0
        switch file.string("\(p).rope.scaling.type") ?? "linear" {
        case "none":
            return 1
        case "linear":
            guard factor >= 0, factor.isFinite else {
                throw .invalidHyperparameter(key: "\(p).rope.scaling.factor", value: String(factor))
            }
            return factor == 0 ? 1 : 1 / factor
        case let other:
            throw .unsupportedHyperparameter(key: "\(p).rope.scaling.type", value: other)
        }
    }
}
