/// The tokenization algorithm, from GGUF `tokenizer.ggml.model`. Parsed once at the boundary.
package enum TokenizerModel: Sendable, Equatable {
    /// GPT-2 style byte-level BPE with merge ranks (`"gpt2"`), llama.cpp `llm_tokenizer_bpe`.
    case bytePairEncoding
    /// SentencePiece-style bigram merging by piece score with `<0xXX>` byte fallback (`"llama"`),
    /// llama.cpp `llm_tokenizer_spm`.
    case sentencePiece

    /// Maps the GGUF model name; anything else is a typed error.
    package init(ggufName: String) throws(TokenizerError) {
        switch ggufName {
        case "gpt2": self = .bytePairEncoding
        case "llama": self = .sentencePiece
        default: throw .unsupportedModel(name: ggufName)
        }
    }
}
