/// Everything a `Tokenizer` needs, as plain arrays and values (what the GGUF `tokenizer.*` keys hold).
///
/// Built from a GGUF file by `init(gguf:)`, or by hand for tests. Validation happens in
/// `Tokenizer.init(spec:)`.
package struct TokenizerSpec: Sendable {
    /// Token texts by id (`tokenizer.ggml.tokens`).
    package var tokens: [String]
    /// Piece scores by id (`tokenizer.ggml.scores`); SentencePiece merges by these.
    package var scores: [Float]?
    /// GGUF token types by id (`tokenizer.ggml.token_type`); absent means all normal.
    package var types: [Int32]?
    /// BPE merges, `"left right"`, in rank order (`tokenizer.ggml.merges`).
    package var merges: [String]?
    /// Tokenization algorithm (`tokenizer.ggml.model`).
    package var model: TokenizerModel
    /// BPE word split (`tokenizer.ggml.pre`); `.none` for SentencePiece.
    package var pre: PreTokenizer
    /// Special token ids (`tokenizer.ggml.*_token_id`).
    package var bosId: Int32?
    package var eosId: Int32?
    /// End-of-turn token; when nil it is looked up by text as llama.cpp does.
    package var eotId: Int32?
    package var eomId: Int32?
    package var padId: Int32?
    package var unkId: Int32?
    /// Whether `encode` with the model default prepends BOS (`tokenizer.ggml.add_bos_token`).
    package var addBOS: Bool
    /// Whether `encode` with the model default appends EOS (`tokenizer.ggml.add_eos_token`).
    package var addEOS: Bool
    /// SentencePiece only: prefix a space to text that starts the input or follows a special token
    /// (`tokenizer.ggml.add_space_prefix`, llama.cpp default true for SPM; Gemma 3 says false).
    package var addSpacePrefix: Bool
    /// Jinja chat template text (`tokenizer.chat_template`), recognised by `ChatTemplate`.
    package var chatTemplate: String?

    /// A spec from plain values; defaults describe a vocabulary with no special tokens.
    package init(
        tokens: [String], scores: [Float]? = nil, types: [Int32]? = nil, merges: [String]? = nil,
        model: TokenizerModel, pre: PreTokenizer,
        bosId: Int32? = nil, eosId: Int32? = nil, eotId: Int32? = nil, eomId: Int32? = nil,
        padId: Int32? = nil, unkId: Int32? = nil,
        addBOS: Bool = false, addEOS: Bool = false, addSpacePrefix: Bool = false,
        chatTemplate: String? = nil
    ) {
        self.tokens = tokens
        self.scores = scores
        self.types = types
        self.merges = merges
        self.model = model
        self.pre = pre
        self.bosId = bosId
        self.eosId = eosId
        self.eotId = eotId
        self.eomId = eomId
        self.padId = padId
        self.unkId = unkId
        self.addBOS = addBOS
        self.addEOS = addEOS
        self.addSpacePrefix = addSpacePrefix
        self.chatTemplate = chatTemplate
    }
}
