import Formats

/// Hyperparameters of a decoder-only transformer, read from `<arch>.*` GGUF metadata.
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
    /// Sliding-window size in tokens, or nil when every layer attends globally.
    package var slidingWindow: Int?
    /// Every `slidingWindowPattern`-th layer is global; the others slide (Gemma 3: 6).
    package var slidingWindowPattern: Int
    /// Multiplier applied to queries before the dot product with keys.
    package var attentionScale: Float

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
        if let dims = file.int("\(p).rope.dimension_count"), dims != headDim {
            // Partial rotary embeddings (RoPE over only the first `dims` of each head).
            throw .unsupportedHyperparameter(key: "\(p).rope.dimension_count", value: String(dims))
        }
        guard let tokens = file.stringArray("tokenizer.ggml.tokens") else {
            throw .invalidHyperparameter(key: "tokenizer.ggml.tokens", value: "missing")
        }
        vocabularySize = tokens.count
        try Self.refuseRoPEScaling(file: file, prefix: p)
        switch arch {
        case .llama, .qwen2:
            ropeBaseSliding = ropeBase
            slidingWindow = nil
            slidingWindowPattern = 1
            attentionScale = 1 / Float(headDim).squareRoot()
        case .gemma3:
            // Gemma 3 local layers use a fixed RoPE base of 10 000 (the HF config's
            // `rope_local_base_freq`); llama.cpp hard-codes the same for gemma3.
            ropeBaseSliding = 10_000
            slidingWindow = file.int("\(p).attention.sliding_window")
            slidingWindowPattern = 6
            attentionScale = 1 / Float(headDim).squareRoot()
        }
    }

    /// RoPE scaling rewrites every rotation angle; until a scaling type is implemented, a file
    /// that asks for one is refused instead of being run with unscaled (wrong) positions.
    private static func refuseRoPEScaling(file: GGUFFile, prefix p: String) throws(ModelError) {
        if let type = file.string("\(p).rope.scaling.type"), type != "none" {
            throw .unsupportedHyperparameter(key: "\(p).rope.scaling.type", value: type)
        }
        if let factor = file.float("\(p).rope.scaling.factor"), factor != 0, factor != 1,
           file.string("\(p).rope.scaling.type") == nil {
            throw .unsupportedHyperparameter(key: "\(p).rope.scaling.factor", value: String(factor))
        }
    }
}
