import Formats

/// Reading the `tokenizer.*` metadata of a GGUF file.
///
/// Keys: `tokenizer.ggml.model` (string, required), `.pre` (string), `.tokens` (string array,
/// required), `.scores` (f32 array), `.token_type` (i32 array), `.merges` (string array),
/// `.bos_token_id` / `.eos_token_id` / `.eot_token_id` / `.eom_token_id` / `.padding_token_id` /
/// `.unknown_token_id` (integers), `.add_bos_token` / `.add_eos_token` / `.add_space_prefix`
/// (bools), and `tokenizer.chat_template` (string). Defaults where a key is absent follow
/// llama.cpp `llama_vocab::impl::load`: SentencePiece adds BOS and a space prefix, byte-level BPE
/// adds neither (Llama 3 adds BOS). Special ids outside the vocabulary are ignored, as llama.cpp
/// ignores them with a warning.
extension TokenizerSpec {
    /// Reads the tokenizer metadata of `gguf`; missing required keys are typed errors.
    package init(gguf: GGUFFile) throws(TokenizerError) {
        guard let modelName = gguf.string("tokenizer.ggml.model") else {
            throw .missingMetadata(key: "tokenizer.ggml.model")
        }
        let model = try TokenizerModel(ggufName: modelName)
        let pre = try PreTokenizer(ggufName: gguf.string("tokenizer.ggml.pre"), model: model)
        guard let tokens = gguf.stringArray("tokenizer.ggml.tokens") else {
            throw .missingMetadata(key: "tokenizer.ggml.tokens")
        }
        let scores = gguf.floatArray("tokenizer.ggml.scores") ?? gguf.intArray("tokenizer.ggml.scores")?.map(Float.init)
        let types = gguf.intArray("tokenizer.ggml.token_type")?.map { Int32(clamping: $0) }
        func id(_ suffix: String) -> Int32? {
            guard let value = gguf.int("tokenizer.ggml.\(suffix)"), value >= 0, value < tokens.count else { return nil }
            return Int32(value)
        }
        let isSentencePiece = model == .sentencePiece
        self.init(
            tokens: tokens,
            scores: scores.map { Array($0.prefix(tokens.count)) },
            types: types.map { Array($0.prefix(tokens.count)) },
            merges: gguf.stringArray("tokenizer.ggml.merges"),
            model: model,
            pre: pre,
            bosId: id("bos_token_id"),
            eosId: id("eos_token_id"),
            eotId: id("eot_token_id"),
            eomId: id("eom_token_id"),
            padId: id("padding_token_id"),
            unkId: id("unknown_token_id"),
            addBOS: gguf.bool("tokenizer.ggml.add_bos_token") ?? (isSentencePiece || pre == .llama3),
            addEOS: gguf.bool("tokenizer.ggml.add_eos_token") ?? false,
            addSpacePrefix: gguf.bool("tokenizer.ggml.add_space_prefix") ?? isSentencePiece,
            chatTemplate: gguf.string("tokenizer.chat_template")
        )
    }
}

extension Tokenizer {
    /// The tokenizer of a GGUF model file.
    package convenience init(gguf: GGUFFile) throws(TokenizerError) {
        try self.init(spec: TokenizerSpec(gguf: gguf))
    }
}
