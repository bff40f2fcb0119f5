import Foundation
import Formats

/// Hyperparameters of a BERT-family text encoder, from a Hugging Face `config.json` or from
/// `<arch>.*` GGUF metadata.
package struct EncoderConfig: Sendable, Equatable {
    package var layerCount: Int
    package var embeddingLength: Int
    package var headCount: Int
    package var feedForwardLength: Int
    /// Longest sequence the position scheme supports (absolute table size, or the trained
    /// context for rotary positions), `[CLS]` and `[SEP]` included.
    package var maxPositions: Int
    package var vocabularySize: Int
    package var typeVocabularySize: Int
    package var layerNormEpsilon: Float
    /// Rotary base, for encoders with rotary positions.
    package var ropeBase: Float

    package var headDim: Int { embeddingLength / headCount }

    package init(layerCount: Int, embeddingLength: Int, headCount: Int, feedForwardLength: Int,
                 maxPositions: Int, vocabularySize: Int, typeVocabularySize: Int,
                 layerNormEpsilon: Float, ropeBase: Float = 10_000) {
        self.layerCount = layerCount
        self.embeddingLength = embeddingLength
        self.headCount = headCount
        self.feedForwardLength = feedForwardLength
        self.maxPositions = maxPositions
        self.vocabularySize = vocabularySize
        self.typeVocabularySize = typeVocabularySize
        self.layerNormEpsilon = layerNormEpsilon
        self.ropeBase = ropeBase
    }

    /// From a BERT `config.json`: `num_hidden_layers`, `hidden_size`, `num_attention_heads`,
    /// `intermediate_size`, `max_position_embeddings`, `vocab_size`, `type_vocab_size`,
    /// `layer_norm_eps`. Only absolute positions and the erf GELU are implemented; anything else
    /// is an error rather than a silently different model.
    package init(bertConfigJSON data: Data) throws(ModelError) {
        guard let c = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw .invalidHyperparameter(key: "config.json", value: "not a JSON object")
        }
        func int(_ key: String) throws(ModelError) -> Int {
            guard let v = c[key] as? Int else { throw .invalidHyperparameter(key: key, value: "\(c[key] ?? "missing")") }
            guard v > 0, v < 1 << 24 else { throw .invalidHyperparameter(key: key, value: String(v)) }
            return v
        }
        let type = c["model_type"] as? String ?? "bert"
        guard type == "bert" else { throw .unsupportedArchitecture("config.json model_type \(type)") }
        let act = c["hidden_act"] as? String ?? "gelu"
        guard act == "gelu" else { throw .invalidHyperparameter(key: "hidden_act", value: act) }
        let positions = c["position_embedding_type"] as? String ?? "absolute"
        guard positions == "absolute" else { throw .invalidHyperparameter(key: "position_embedding_type", value: positions) }
        let eps = (c["layer_norm_eps"] as? Double).map(Float.init) ?? 1e-12
        self.init(layerCount: try int("num_hidden_layers"), embeddingLength: try int("hidden_size"),
                  headCount: try int("num_attention_heads"), feedForwardLength: try int("intermediate_size"),
                  maxPositions: try int("max_position_embeddings"), vocabularySize: try int("vocab_size"),
                  typeVocabularySize: try int("type_vocab_size"), layerNormEpsilon: eps)
        try validate()
    }

    /// From the metadata of a GGUF encoder whose architecture is `arch` (e.g. `nomic-bert`).
    package init(gguf file: GGUFFile, arch: String) throws(ModelError) {
        func int(_ key: String) throws(ModelError) -> Int {
            guard let v = file.int("\(arch).\(key)") else { throw .invalidHyperparameter(key: "\(arch).\(key)", value: "missing") }
            guard v > 0, v < 1 << 24 else { throw .invalidHyperparameter(key: "\(arch).\(key)", value: String(v)) }
            return v
        }
        guard let tokens = file.stringArray("tokenizer.ggml.tokens") else {
            throw .invalidHyperparameter(key: "tokenizer.ggml.tokens", value: "missing")
        }
        self.init(layerCount: try int("block_count"), embeddingLength: try int("embedding_length"),
                  headCount: try int("attention.head_count"), feedForwardLength: try int("feed_forward_length"),
                  maxPositions: try int("context_length"), vocabularySize: tokens.count,
                  typeVocabularySize: file.int("tokenizer.ggml.token_type_count") ?? 2,
                  layerNormEpsilon: file.float("\(arch).attention.layer_norm_epsilon") ?? 1e-12,
                  ropeBase: file.float("\(arch).rope.freq_base") ?? 10_000)
        try validate()
    }

    private func validate() throws(ModelError) {
        guard embeddingLength % headCount == 0, headDim % 2 == 0 else {
            throw .invalidHyperparameter(key: "num_attention_heads", value: "\(headCount) does not divide \(embeddingLength) into even heads")
        }
        guard layerNormEpsilon.isFinite, layerNormEpsilon >= 0 else {
            throw .invalidHyperparameter(key: "layer_norm_eps", value: String(layerNormEpsilon))
        }
    }
}
